#!/usr/bin/env python3
# Writes the Grafana dashboards of deploy/grafana/dashboards/ (provisionable from files: the
# Prometheus data source is a template variable, no __inputs).  Run after editing; commit both.
# Usage: make_dashboards.py [OUT_DIR (default: dashboards/ beside this file)]
import json
import os
import sys

DS = {"type": "prometheus", "uid": "${datasource}"}


def ds_var():
    return {"name": "datasource", "label": "Prometheus", "type": "datasource", "query": "prometheus",
            "current": {}, "hide": 0, "refresh": 1, "regex": "", "options": []}


def query_var(name, label, query, multi=False):
    return {"name": name, "label": label, "type": "query", "datasource": DS,
            "query": {"query": query, "refId": "var-" + name}, "definition": query, "refresh": 2,
            "sort": 3, "multi": multi, "includeAll": multi, "current": {}, "options": [], "hide": 0}


class Board:
    def __init__(self, uid, title, desc, variables=()):
        self.uid, self.title, self.desc = uid, title, desc
        self.vars = [ds_var(), *variables]
        self.panels = []
        self.y = 0
        self.x = 0
        self.row_h = 0

    def panel(self, kind, title, targets, w=12, h=8, desc="", **extra):
        if self.x + w > 24:
            self.x, self.y = 0, self.y + self.row_h
            self.row_h = 0
        p = {"id": len(self.panels) + 1, "type": kind, "title": title, "description": desc,
             "datasource": DS, "gridPos": {"x": self.x, "y": self.y, "w": w, "h": h},
             "targets": [dict({"datasource": DS, "refId": chr(65 + i)}, **t) for i, t in enumerate(targets)]}
        p.update(extra)
        self.panels.append(p)
        self.x += w
        self.row_h = max(self.row_h, h)
        return p

    def json(self):
        return {"uid": self.uid, "title": self.title, "description": self.desc, "tags": ["hopwatch"],
                "timezone": "browser", "schemaVersion": 37, "version": 1, "editable": True,
                "refresh": "10s", "time": {"from": "now-1h", "to": "now"},
                "templating": {"list": self.vars}, "annotations": {"list": [INCIDENTS]}, "panels": self.panels,
                "links": [{"title": "hopwatch", "type": "dashboards", "tags": ["hopwatch"], "asDropdown": True}]}


# Every board marks the analyzer's incidents on its time axis: an annotation per episode (firing, or raised
# less than the minimum visible time ago) from hopwatch_analyzer_incident_info, titled by its alert name,
# its text the place and a link to its congestion graph, served by the analyzer that exports the series.
INCIDENTS = {
    "name": "hopwatch incidents", "datasource": DS, "enable": True, "hide": False, "iconColor": "#cb181d",
    "expr": "max by (instance, alertname, severity, event_id, node, node_name, port, graph) "
            "(hopwatch_analyzer_incident_info)",
    "step": "5s", "useValueForTime": False,
    "titleFormat": "{{alertname}} ({{severity}})",
    "textFormat": '{{node_name}} ({{node}}) port {{port}}, event {{event_id}}: '
                  '<a href="http://{{instance}}{{graph}}">congestion graph</a>',
    "tagKeys": "alertname,severity,node_name",
}


def t(expr, legend="", **kw):
    return dict({"expr": expr, "legendFormat": legend}, **kw)


def overview():
    b = Board("hopwatch-fabric", "hopwatch / fabric overview",
              "Telemetry report rate, parse errors, report loss and the most congested queues of the fabric.")
    b.panel("stat", "Collectors up", [t('sum(up{job="hopwatch-collector"})')], w=4, h=4)
    b.panel("stat", "Reports/s", [t("sum(rate(hopwatch_collector_reports_total[$__rate_interval]))")], w=5, h=4,
            fieldConfig={"defaults": {"unit": "reqps"}, "overrides": []})
    b.panel("stat", "Records/s", [t("sum(rate(hopwatch_collector_records_total[$__rate_interval]))")], w=5, h=4)
    b.panel("stat", "Parse error ratio",
            [t("sum(rate(hopwatch_collector_packet_errors_total[$__rate_interval])) / "
               "sum(rate(hopwatch_collector_packets_total[$__rate_interval]))")], w=5, h=4,
            fieldConfig={"defaults": {"unit": "percentunit"}, "overrides": []})
    b.panel("stat", "Report loss ratio",
            [t("sum(rate(hopwatch_report_packets_lost_total[$__rate_interval])) / "
               "(sum(rate(hopwatch_report_packets_received_total[$__rate_interval])) + "
               "sum(rate(hopwatch_report_packets_lost_total[$__rate_interval])))")], w=5, h=4,
            fieldConfig={"defaults": {"unit": "percentunit"}, "overrides": []})
    b.panel("timeseries", "Report rate by collector",
            [t("sum by (instance) (rate(hopwatch_collector_reports_total[$__rate_interval]))", "{{instance}}")])
    b.panel("timeseries", "Parse errors by reason",
            [t("sum by (reason) (rate(hopwatch_collector_packet_errors_total[$__rate_interval])) > 0", "{{reason}}")])
    b.panel("timeseries", "Report loss by node",
            [t("sum by (node) (rate(hopwatch_report_packets_lost_total[$__rate_interval])) / "
               "(sum by (node) (rate(hopwatch_report_packets_received_total[$__rate_interval])) + "
               "sum by (node) (rate(hopwatch_report_packets_lost_total[$__rate_interval])))", "{{node}}")],
            fieldConfig={"defaults": {"unit": "percentunit"}, "overrides": []})
    b.panel("table", "Top congested queues (occupancy)",
            [t("topk(10, max by (node, port, queue) (hopwatch_queue_occupancy_bytes))", format="table",
               instant=True)], fieldConfig={"defaults": {"unit": "bytes"}, "overrides": []})
    b.panel("timeseries", "Top queues by p99 hop latency",
            [t("topk(10, histogram_quantile(0.99, sum by (node, port, queue, le) "
               "(rate(hopwatch_queue_hop_latency_seconds_bucket[$__rate_interval]))))",
               "{{node}} port {{port}} q{{queue}}")], fieldConfig={"defaults": {"unit": "s"}, "overrides": []})
    b.panel("timeseries", "Drop reports by queue",
            [t("topk(10, sum by (node, port, queue) (rate(hopwatch_queue_drops_total[$__rate_interval]))) > 0",
               "{{node}} port {{port}} q{{queue}}")])
    b.panel("timeseries", "Records dropped by the sinks",
            [t("sum by (instance) (rate(hopwatch_collector_sink_dropped_records_total[$__rate_interval]))",
               "sink ring {{instance}}"),
             t("sum by (instance) (rate(hopwatch_collector_clickhouse_dropped_records_total[$__rate_interval]))",
               "ClickHouse {{instance}}")])
    b.panel("timeseries", "ClickHouse inserts",
            [t("sum by (instance) (rate(hopwatch_collector_clickhouse_inserted_records_total[$__rate_interval]))",
               "inserted {{instance}}"),
             t("sum by (instance) (hopwatch_collector_clickhouse_queued_records)", "queued {{instance}}"),
             t("sum by (instance) (rate(hopwatch_collector_clickhouse_retries_total[$__rate_interval]))",
               "retries {{instance}}")])
    return b


def switch():
    b = Board("hopwatch-switch", "hopwatch / switch",
              "One switch: occupancy of every (port, queue), hop latency heat map, drops.",
              [query_var("node", "Switch", "label_values(hopwatch_queue_reports_total, node)")])
    b.panel("table", "Queue occupancy: ports × queues (now)",
            [t('max by (port, queue) (hopwatch_queue_occupancy_bytes{node="$node"})', format="table",
               instant=True)], w=12, h=10,
            desc="Last reported occupancy per egress (port, queue): one row per queue, one column per port.",
            transformations=[{"id": "groupingToMatrix",
                              "options": {"columnField": "port", "rowField": "queue", "valueField": "Value"}}],
            fieldConfig={"defaults": {"unit": "bytes", "custom": {"displayMode": "color-background"},
                                      "color": {"mode": "continuous-GrYlRd"}}, "overrides": []})
    b.panel("heatmap", "Hop latency heat map",
            [t('sum by (le) (rate(hopwatch_queue_hop_latency_seconds_bucket{node="$node"}[$__rate_interval]))',
               "{{le}}", format="heatmap")], w=12, h=10,
            options={"calculate": False, "yAxis": {"unit": "s"}})
    b.panel("timeseries", "Occupancy by port and queue",
            [t('max by (port, queue) (hopwatch_queue_occupancy_bytes{node="$node"})', "port {{port}} q{{queue}}")],
            fieldConfig={"defaults": {"unit": "bytes"}, "overrides": []})
    b.panel("timeseries", "Peak occupancy by port and queue",
            [t('max by (port, queue) (hopwatch_queue_occupancy_peak_bytes{node="$node"})', "port {{port}} q{{queue}}")],
            fieldConfig={"defaults": {"unit": "bytes"}, "overrides": []})
    b.panel("timeseries", "p99 hop latency by port",
            [t('histogram_quantile(0.99, sum by (port, le) (rate(hopwatch_queue_hop_latency_seconds_bucket'
               '{node="$node"}[$__rate_interval])))', "port {{port}}")],
            fieldConfig={"defaults": {"unit": "s"}, "overrides": []})
    b.panel("timeseries", "Drop reports by port and queue",
            [t('sum by (port, queue) (rate(hopwatch_queue_drops_total{node="$node"}[$__rate_interval]))',
               "port {{port}} q{{queue}}")])
    b.panel("timeseries", "Reports from this switch",
            [t('sum by (hw_id) (rate(hopwatch_report_packets_received_total{node="$node"}[$__rate_interval]))',
               "received hw {{hw_id}}"),
             t('sum by (hw_id) (rate(hopwatch_report_packets_lost_total{node="$node"}[$__rate_interval]))',
               "lost hw {{hw_id}}")])
    return b


def link():
    b = Board("hopwatch-link", "hopwatch / link",
              "One link, seen from its transmitting side: the egress (node, port) and every queue on it.",
              [query_var("node", "Switch", "label_values(hopwatch_queue_reports_total, node)"),
               query_var("port", "Egress port", 'label_values(hopwatch_queue_reports_total{node="$node"}, port)')])
    sel = 'node="$node",port="$port"'
    b.panel("timeseries", "Occupancy by queue", [t("hopwatch_queue_occupancy_bytes{%s}" % sel, "q{{queue}}")],
            fieldConfig={"defaults": {"unit": "bytes"}, "overrides": []})
    b.panel("timeseries", "Hop latency p50 / p99",
            [t("histogram_quantile(0.5, sum by (le) (rate(hopwatch_queue_hop_latency_seconds_bucket{%s}"
               "[$__rate_interval])))" % sel, "p50"),
             t("histogram_quantile(0.99, sum by (le) (rate(hopwatch_queue_hop_latency_seconds_bucket{%s}"
               "[$__rate_interval])))" % sel, "p99")], fieldConfig={"defaults": {"unit": "s"}, "overrides": []})
    b.panel("timeseries", "Mean hop latency by queue",
            [t("rate(hopwatch_queue_hop_latency_seconds_sum{%s}[$__rate_interval]) / "
               "rate(hopwatch_queue_hop_latency_seconds_count{%s}[$__rate_interval])" % (sel, sel), "q{{queue}}")],
            fieldConfig={"defaults": {"unit": "s"}, "overrides": []})
    b.panel("timeseries", "Hop records and drops by queue",
            [t("rate(hopwatch_queue_reports_total{%s}[$__rate_interval])" % sel, "records q{{queue}}"),
             t("rate(hopwatch_queue_drops_total{%s}[$__rate_interval])" % sel, "drops q{{queue}}")])
    b.panel("stat", "Seconds since the last report on this link",
            [t("time() - max(hopwatch_queue_last_report_timestamp_seconds{%s})" % sel)], w=24, h=4,
            fieldConfig={"defaults": {"unit": "s"}, "overrides": []})
    return b


def alerts():
    b = Board("hopwatch-alerts", "hopwatch / alerts",
              "Alerts Prometheus holds for hopwatch (collector and analyzer health) and the analyzer's active warnings.")
    b.panel("table", "Firing alerts", [t('ALERTS{alertstate="firing"}', format="table", instant=True)], w=24, h=10)
    b.panel("timeseries", "Alerts by name", [t("count by (alertname, alertstate) (ALERTS)", "{{alertname}} {{alertstate}}")])
    b.panel("timeseries", "Analyzer incidents active, by name",
            [t("sum by (alertname) (hopwatch_analyzer_incidents_active) > 0", "{{alertname}}")],
            desc="Episodes firing or raised less than alerting.min_visible_ns (default 30 s) ago: fabric "
                 "episodes last milliseconds, this is what a scrape every few seconds can see.")
    b.panel("timeseries", "Analyzer events per minute, by name",
            [t('sum by (alertname, severity) (increase(hopwatch_analyzer_events_total{state="raised"}[1m]))',
               "{{alertname}} ({{severity}})")])
    b.panel("timeseries", "Collectors and analyzers scraped",
            [t('up{job=~"hopwatch-collector|hopwatch-analyzer"}', "{{job}} {{instance}}")])
    b.panel("timeseries", "Seconds since collector start",
            [t("time() - hopwatch_collector_start_time_seconds", "{{instance}}")],
            fieldConfig={"defaults": {"unit": "s"}, "overrides": []})
    b.panel("timeseries", "Table overflow and flow evictions",
            [t("sum by (instance) (rate(hopwatch_collector_table_overflow_total[$__rate_interval]))", "overflow {{instance}}"),
             t("sum by (instance) (rate(hopwatch_collector_flow_evictions_total[$__rate_interval]))", "evictions {{instance}}"),
             t("sum by (instance) (hopwatch_collector_flows)", "flows {{instance}}")])
    return b


def analyzer():
    b = Board("hopwatch-analyzer", "hopwatch / analyzer",
              "The analyzer's early warnings: active alerts by name, congestion score per topology link, "
              "records placed on the LLDP topology, alert delivery.")
    rate = "[$__rate_interval]"
    b.panel("stat", "Analyzers up", [t('sum(up{job="hopwatch-analyzer"})')], w=4, h=4)
    b.panel("stat", "Records/s analyzed", [t("sum(rate(hopwatch_analyzer_records_total%s))" % rate)], w=5, h=4)
    b.panel("stat", "Active incidents", [t("sum(hopwatch_analyzer_incidents_active)")], w=5, h=4)
    b.panel("stat", "Unplaced records",
            [t('sum(rate(hopwatch_analyzer_records_placed_total{placed="no"}%s)) / '
               "sum(rate(hopwatch_analyzer_records_placed_total%s))" % (rate, rate))], w=5, h=4,
            desc="Share of hop records whose (node, egress port) is not on the LLDP topology: the --map file "
                 "or LLDP is out of date (hopwatch-analyzer diagnose --only placement).",
            fieldConfig={"defaults": {"unit": "percentunit"}, "overrides": []})
    b.panel("stat", "Reports lost (seen by the analyzer)",
            [t("sum(increase(hopwatch_analyzer_reports_lost_total[$__range]))")], w=5, h=4)
    b.panel("timeseries", "Active incidents by name",
            [t("sum by (alertname) (hopwatch_analyzer_incidents_active) > 0", "{{alertname}}")])
    b.panel("timeseries", "Path latency by leaf pair (mean over 1 min)",
            [t("topk(10, rate(hopwatch_analyzer_path_latency_seconds_sum[1m]) / "
               "rate(hopwatch_analyzer_path_latency_seconds_count[1m]))", "{{src}} -> {{dst}}")],
            fieldConfig={"defaults": {"unit": "s"}, "overrides": []})
    b.panel("bargauge", "Path latency by leaf pair (mean, last 10 s)",
            [t("topk(20, hopwatch_analyzer_path_latency_window_seconds)", "{{src}} -> {{dst}}", instant=True)],
            desc="The analyzer's windowed gauge: mean in-switch latency of each leaf pair's complete reports over "
                 "its last 10 s. Colours on an absolute scale, as the latency matrix SVG: under 31.6 µs "
                 "yellow, orange to 1 ms, red above.",
            options={"orientation": "horizontal", "displayMode": "gradient"},
            fieldConfig={"defaults": {"unit": "s", "thresholds": {"mode": "absolute", "steps": [
                {"color": "#ffffcc", "value": None}, {"color": "#fd8d3c", "value": 3.16e-05},
                {"color": "#bd0026", "value": 0.001}]}}, "overrides": []})
    b.panel("bargauge", "Most congested links (score, now)",
            [t("topk(15, max by (link) (hopwatch_analyzer_link_congestion_score))", "{{link}}", instant=True)],
            desc="Peak queue occupancy on either side of the link over the last 16 ms of record time, divided by "
                 "high_queue.raise: 1 = at the HighQueue threshold.",
            options={"orientation": "horizontal", "displayMode": "gradient"},
            fieldConfig={"defaults": {"min": 0, "max": 1.5, "thresholds": {"mode": "absolute", "steps": [
                {"color": "green", "value": None}, {"color": "orange", "value": 0.8},
                {"color": "red", "value": 1}]}}, "overrides": []})
    b.panel("timeseries", "Congestion score per link (top 10)",
            [t("topk(10, max by (link) (hopwatch_analyzer_link_congestion_score))", "{{link}}")])
    b.panel("timeseries", "Records placed / unplaced on the topology",
            [t("sum by (placed) (rate(hopwatch_analyzer_records_placed_total%s))" % rate, "placed={{placed}}")])
    b.panel("timeseries", "Events raised / resolved",
            [t("sum by (state) (rate(hopwatch_analyzer_events_total%s))" % rate, "{{state}}")])
    b.panel("timeseries", "Alert delivery",
            [t("sum by (sink, result) (rate(hopwatch_analyzer_alert_posts_total%s))" % rate, "{{sink}} {{result}}"),
             t("sum by (sink) (hopwatch_analyzer_alerts_waiting)", "{{sink}} waiting"),
             t("sum by (sink) (rate(hopwatch_analyzer_alerts_dropped_total%s))" % rate, "{{sink}} dropped")])
    b.panel("timeseries", "Queue table",
            [t("sum by (instance) (hopwatch_analyzer_queues)", "queues {{instance}}"),
             t("sum by (instance) (rate(hopwatch_analyzer_queue_table_full_total%s))" % rate,
               "records without a queue slot {{instance}}")])
    return b


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "dashboards")
    os.makedirs(out, exist_ok=True)
    for name, make in (("fabric-overview", overview), ("switch", switch), ("link", link), ("alerts", alerts),
                       ("analyzer", analyzer)):
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(make().json(), f, indent=2)
            f.write("\n")


main()
