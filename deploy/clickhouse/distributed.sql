-- The query-side view over all shards: every ClickHouse node of cluster `hopwatch` (see
-- cluster.xml) holds hopwatch.hops for its own collectors and this Distributed table over all of them.
-- Operators query hopwatch.hops_all; collectors insert into their local shard's hopwatch.hops.
CREATE TABLE IF NOT EXISTS hopwatch.hops_all AS hopwatch.hops
ENGINE = Distributed(hopwatch, hopwatch, hops, cityHash64(node_id));
