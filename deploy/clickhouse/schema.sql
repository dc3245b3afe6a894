-- hopwatch per-hop records in ClickHouse (18.16 and later): one column per hw_record field, named
-- as in include/hopwatch/record.h and docs/records.md.  Run on every shard: clickhouse-client --multiquery < schema.sql
CREATE DATABASE IF NOT EXISTS hopwatch;

-- The local table each collector writes to (--clickhouse http://SHARD:8123/?database=hopwatch).
-- Optional fields hold 0 when their `valid` bit is clear: test the bit, not the value.
CREATE TABLE IF NOT EXISTS hopwatch.hops
(
    time_ns          UInt64,
    report_node      UInt32,
    hw_id            UInt8,
    report_seq       UInt32,
    report_flags     UInt8,   -- bits: 1 dropped, 2 congested_queue, 4 tracked_flow, 8 intermediate, 16 postcard, 32 inner_truncated
    format           Enum8('none' = 0, 'tr0.5' = 1, 'tr1.0' = 2, 'tr2.0' = 3, 'int' = 4),
    int_version      Enum8('none' = 0, '0.5' = 1, '1.0' = 2, '2.1' = 3),
    valid            UInt32,  -- bits of enum hw_valid (record.h): 1 ports, 2 hop_latency, 4 queue, ...
    hop_index        UInt8,
    path_len         UInt8,
    node_id          UInt32,
    ingress_port     UInt32,
    egress_port      UInt32,
    l2_ingress_port  UInt32,
    l2_egress_port   UInt32,
    hop_latency      UInt32,
    queue_id         UInt8,
    queue_occupancy  UInt32,
    ingress_ts       UInt64,
    egress_ts        UInt64,
    egress_tx_util   UInt32,
    buffer_id        UInt8,
    buffer_occupancy UInt32,
    drop_reason      UInt8,
    src_ip           FixedString(16),  -- IPv6 or v4-mapped; IPv6NumToString(src_ip) for text
    dst_ip           FixedString(16),
    src_port         UInt16,
    dst_port         UInt16,
    ip_proto         UInt8,
    dscp             UInt8,
    ecn              UInt8,
    roce_opcode      UInt8,
    roce_dest_qp     UInt32,
    flow_hash        UInt64,
    report_pos       UInt16,  -- order among the records of one (time_ns, report_node, hw_id, report_seq): replays sort by it
    -- derived at insert time, not sent by the collector
    time             DateTime MATERIALIZED toDateTime(intDiv(time_ns, 1000000000)),
    date             Date MATERIALIZED toDate(intDiv(time_ns, 1000000000))
)
ENGINE = MergeTree
PARTITION BY date
ORDER BY (node_id, egress_port, queue_id, time_ns)
SETTINGS index_granularity = 8192;
