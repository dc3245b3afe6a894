-- hopwatch.lua: Wireshark/tshark dissector for INT telemetry.
--
--   * Telemetry Report v0.5 (fabric-tna), v1.0 and v2.0 (coalesced individual reports) on the
--     collector's UDP ports (preference, default 32766);
--   * INT-MD v0.5, v1.0 and v2.1 shim + metadata header + stack over TCP/UDP (detected by DSCP or
--     by UDP destination port), inside VXLAN-GPE (next protocol 0x82/0x08/0x05) and as a Geneve
--     option (class 0x0103); the GEANT int-platform variant as the `geant` profile.
--
-- Written from the P4.org specifications (INT v0.5/v1.0/v2.1, Telemetry Report v0.5/v1.0/v2.0) and
-- fabric-tna's report headers.  Hop fields are named as hopwatch's per-hop record contract
-- (docs/records.md): hopwatch.hop.node_id, hopwatch.hop.ingress_port, hopwatch.hop.hop_latency, ...
--
-- Install: copy this file into the personal Lua plugins folder (Help > About > Folders), e.g.
-- ~/.local/lib/wireshark/plugins/ (Wireshark 4.0 on Linux) or run
--   tshark -X lua_script:hopwatch.lua -r capture.pcap -V
--
-- Packets after INT headers (and the inner packet of a report) go back to Wireshark's own
-- dissectors (Ethernet, IPv4, IPv6, the UDP/TCP port tables); an INT stack inside a report's inner
-- packet is shown inside that report's tree.

local hw = Proto("hopwatch", "INT Telemetry Report")
local intp = Proto("int", "In-band Network Telemetry (INT-MD)")

----------------------------------------------------------------------------------------------------
-- Fields
----------------------------------------------------------------------------------------------------
local rep_type_vals = { [0] = "Inner packet only", [1] = "INT", [2] = "IOAM" }
local in_type_vals = { [0] = "None", [1] = "TLV", [2] = "Domain-specific extension", [3] = "Ethernet",
	[4] = "IPv4", [5] = "IPv6" }
local tlv_type_vals = { [0] = "Domain-specific extension data", [1] = "Ethernet", [2] = "IPv4", [3] = "IPv6" }
local tr1_nproto_vals = { [0] = "Ethernet", [1] = "IPv4", [2] = "IPv6" }
local tr05_nproto_vals = { [0] = "Ethernet", [1] = "Drop report header + Ethernet",
	[2] = "Switch-local report header + Ethernet" }
local shim_type_vals = { [1] = "INT-MD (hop-by-hop)", [2] = "INT-Destination", [3] = "INT-MX" }
local npt_vals = { [0] = "Original DSCP", [1] = "Original UDP destination port", [2] = "Original IP protocol" }
local gpe_np_vals = { [1] = "IPv4", [2] = "IPv6", [3] = "Ethernet", [4] = "NSH" }

local F = {}
local function add(f) hw.fields[#hw.fields + 1] = f; return f end
local function addi(f) intp.fields[#intp.fields + 1] = f; return f end
hw.fields = {}
intp.fields = {}

-- report level
F.version = add(ProtoField.uint8("hopwatch.version", "Version", base.DEC))
F.format = add(ProtoField.string("hopwatch.format", "Format"))
F.r_node = add(ProtoField.uint32("hopwatch.report.node", "Reporting node (node id / switch id)", base.DEC))
F.r_hw_id = add(ProtoField.uint8("hopwatch.report.hw_id", "Hardware id", base.DEC))
F.r_seq = add(ProtoField.uint32("hopwatch.report.seq", "Sequence number", base.DEC))
F.r_ts = add(ProtoField.uint64("hopwatch.report.ingress_ts", "Ingress timestamp (fixed header)", base.DEC))
F.r_flag_d = add(ProtoField.bool("hopwatch.report.flags.d", "D (dropped)"))
F.r_flag_q = add(ProtoField.bool("hopwatch.report.flags.q", "Q (congested queue)"))
F.r_flag_f = add(ProtoField.bool("hopwatch.report.flags.f", "F (tracked flow)"))
F.r_flag_i = add(ProtoField.bool("hopwatch.report.flags.i", "I (intermediate)"))
F.r_flag_cut = add(ProtoField.bool("hopwatch.report.flags.inner_truncated",
	"Inner packet cut inside its headers (inner_truncated)"))
F.r_nproto = add(ProtoField.uint8("hopwatch.report.nproto", "Next protocol", base.DEC))
F.r_length = add(ProtoField.uint8("hopwatch.report.length", "Length (words)", base.DEC))
F.report = add(ProtoField.uint16("hopwatch.report", "Individual report", base.DEC))
F.r_rep_type = add(ProtoField.uint8("hopwatch.report.rep_type", "RepType", base.DEC, rep_type_vals))
F.r_in_type = add(ProtoField.uint8("hopwatch.report.in_type", "InType", base.DEC, in_type_vals))
F.r_rep_len = add(ProtoField.uint8("hopwatch.report.report_length", "Report length (words)", base.DEC))
F.r_tlv = add(ProtoField.uint8("hopwatch.report.tlv", "Inner TLV (InType 1)", base.DEC, tlv_type_vals))
F.r_tlv_len = add(ProtoField.uint8("hopwatch.report.tlv.length", "TLV length (words of data)", base.DEC))
F.r_tlv_template = add(ProtoField.uint16("hopwatch.report.tlv.template", "Data template", base.HEX))
F.r_tlv_data = add(ProtoField.bytes("hopwatch.report.tlv.data", "TLV data"))
F.r_md_len = add(ProtoField.uint8("hopwatch.report.md_length", "Metadata length (words)", base.DEC))
F.r_rep_md = add(ProtoField.uint16("hopwatch.report.rep_md_bits", "RepMdBits", base.HEX))
F.r_ds_id = add(ProtoField.uint16("hopwatch.report.ds_id", "Domain specific id", base.HEX))
F.r_ds_md_bits = add(ProtoField.uint16("hopwatch.report.ds_md_bits", "DSMdBits", base.HEX))
F.r_ds_md_status = add(ProtoField.uint16("hopwatch.report.ds_md_status", "DSMdStatus", base.HEX))
F.r_ds_md = add(ProtoField.bytes("hopwatch.report.ds_md", "Domain specific metadata"))
F.r_inner = add(ProtoField.bytes("hopwatch.report.inner", "Inner packet"))
F.r_hop = add(ProtoField.uint32("hopwatch.report.hop", "Reporting node's hop", base.DEC))
F.r_pad = add(ProtoField.bytes("hopwatch.report.padding", "Padding"))
-- the inner flow, copied from Wireshark's own IP/UDP/TCP dissectors of the inner packet
F.flow = add(ProtoField.none("hopwatch.flow", "Inner flow (from Wireshark's dissectors)"))
F.flow_src = add(ProtoField.string("hopwatch.flow.src_ip", "Inner source address"))
F.flow_dst = add(ProtoField.string("hopwatch.flow.dst_ip", "Inner destination address"))
F.flow_proto = add(ProtoField.uint8("hopwatch.flow.ip_proto", "Inner IP protocol", base.DEC))
F.flow_sport = add(ProtoField.uint16("hopwatch.flow.src_port", "Inner source port", base.DEC))
F.flow_dport = add(ProtoField.uint16("hopwatch.flow.dst_port", "Inner destination port", base.DEC))
F.flow_dscp = add(ProtoField.uint8("hopwatch.flow.dscp", "Inner DSCP (as on the wire)", base.DEC))
F.flow_ecn = add(ProtoField.uint8("hopwatch.flow.ecn", "Inner ECN", base.DEC))
F.flow_roce_op = add(ProtoField.uint8("hopwatch.flow.roce_opcode", "Inner RoCEv2 BTH opcode", base.DEC))
F.flow_roce_qp = add(ProtoField.uint32("hopwatch.flow.roce_dest_qp", "Inner RoCEv2 BTH destination QP", base.DEC))

-- per-hop values: the same names for a report's own metadata and for INT stack entries
F.node_id = add(ProtoField.uint32("hopwatch.hop.node_id", "Node id", base.DEC))
F.node_name = add(ProtoField.string("hopwatch.node_name", "Node name (names file)"))
F.port_name = add(ProtoField.string("hopwatch.port_name", "Port name (names file)"))
F.ingress_port = add(ProtoField.uint32("hopwatch.hop.ingress_port", "Ingress port", base.DEC))
F.egress_port = add(ProtoField.uint32("hopwatch.hop.egress_port", "Egress port", base.DEC))
F.hop_latency = add(ProtoField.uint32("hopwatch.hop.hop_latency", "Hop latency", base.DEC))
F.queue_id = add(ProtoField.uint8("hopwatch.hop.queue_id", "Queue id", base.DEC))
F.queue_occupancy = add(ProtoField.uint32("hopwatch.hop.queue_occupancy", "Queue occupancy", base.DEC))
F.ingress_ts = add(ProtoField.uint64("hopwatch.hop.ingress_ts", "Ingress timestamp", base.DEC))
F.egress_ts = add(ProtoField.uint64("hopwatch.hop.egress_ts", "Egress timestamp", base.DEC))
F.l2_ingress_port = add(ProtoField.uint32("hopwatch.hop.l2_ingress_port", "L2 ingress port", base.DEC))
F.l2_egress_port = add(ProtoField.uint32("hopwatch.hop.l2_egress_port", "L2 egress port", base.DEC))
F.egress_tx_util = add(ProtoField.uint32("hopwatch.hop.egress_tx_util", "Egress port Tx utilization", base.DEC))
F.buffer_id = add(ProtoField.uint8("hopwatch.hop.buffer_id", "Buffer id", base.DEC))
F.buffer_occupancy = add(ProtoField.uint32("hopwatch.hop.buffer_occupancy", "Buffer occupancy", base.DEC))
F.drop_queue_id = add(ProtoField.uint8("hopwatch.hop.drop_queue_id", "Queue id (drop field)", base.DEC))
F.drop_reason = add(ProtoField.uint8("hopwatch.hop.drop_reason", "Drop reason", base.DEC))
F.drop_pad = add(ProtoField.uint16("hopwatch.hop.drop_padding", "Padding", base.HEX))
F.checksum = add(ProtoField.uint32("hopwatch.hop.checksum_complement", "Checksum complement", base.HEX))
F.cong_queue_id = add(ProtoField.uint8("hopwatch.hop.congestion_queue_id", "Queue id (congestion field)", base.DEC))
F.queue_cong = add(ProtoField.uint32("hopwatch.hop.queue_congestion", "Queue congestion status", base.DEC))
F.reserved_md = add(ProtoField.uint32("hopwatch.hop.reserved_md", "Metadata of a reserved bit", base.HEX))
F.unavailable = add(ProtoField.string("hopwatch.hop.unavailable", "Unavailable (all ones)"))

-- INT headers
F.i_shim = addi(ProtoField.none("int.shim", "INT shim header"))
F.i_md = addi(ProtoField.none("int.md", "INT metadata header"))
F.i_tail = addi(ProtoField.none("int.tail", "INT tail header"))
F.i_version = addi(ProtoField.string("int.version", "INT version"))
F.i_detect = addi(ProtoField.string("int.detected_by", "Detected by"))
F.i_shim_type = addi(ProtoField.uint8("int.shim.type", "Shim type", base.DEC, shim_type_vals))
F.i_shim_npt = addi(ProtoField.uint8("int.shim.npt", "Next protocol type (NPT)", base.DEC, npt_vals))
F.i_shim_g = addi(ProtoField.bool("int.shim.g", "G (GPE: more INT headers follow)"))
F.i_shim_len = addi(ProtoField.uint8("int.shim.length", "Shim length (words)", base.DEC))
F.i_shim_dscp = addi(ProtoField.uint8("int.shim.dscp", "Original DSCP", base.DEC))
F.i_shim_dport = addi(ProtoField.uint16("int.shim.orig_dst_port", "Original UDP destination port", base.DEC))
F.i_shim_proto = addi(ProtoField.uint8("int.shim.ip_proto", "Original IP protocol", base.DEC))
F.i_shim_np = addi(ProtoField.uint8("int.shim.next_proto", "Next protocol (GPE)", base.DEC, gpe_np_vals))
F.i_shim_rsvd = addi(ProtoField.uint8("int.shim.reserved", "Reserved", base.HEX))
F.i_geneve_class = addi(ProtoField.uint16("int.geneve.option_class", "Geneve option class", base.HEX))
F.i_geneve_type = addi(ProtoField.uint8("int.geneve.option_type", "Geneve option type", base.HEX))
F.i_geneve_len = addi(ProtoField.uint8("int.geneve.option_length", "Geneve option length (words)", base.DEC))
F.i_md_ver = addi(ProtoField.uint8("int.md.version", "Version", base.DEC))
F.i_md_rep = addi(ProtoField.uint8("int.md.rep", "Rep (replication)", base.DEC))
F.i_md_c = addi(ProtoField.bool("int.md.c", "C (copy)"))
F.i_md_d = addi(ProtoField.bool("int.md.d", "D (discard)"))
F.i_md_e = addi(ProtoField.bool("int.md.e", "E (max hop count exceeded)"))
F.i_md_m = addi(ProtoField.bool("int.md.m", "M (MTU exceeded)"))
F.i_md_hop_ml = addi(ProtoField.uint8("int.md.hop_ml", "Per-hop metadata length (words)", base.DEC))
F.i_md_ins_cnt = addi(ProtoField.uint8("int.md.ins_cnt", "Instruction count", base.DEC))
F.i_md_max_hop = addi(ProtoField.uint8("int.md.max_hop_cnt", "Max hop count", base.DEC))
F.i_md_total_hop = addi(ProtoField.uint8("int.md.total_hop_cnt", "Total hop count", base.DEC))
F.i_md_rhc = addi(ProtoField.uint8("int.md.remaining_hop_cnt", "Remaining hop count", base.DEC))
F.i_md_bitmap = addi(ProtoField.uint16("int.md.instructions", "Instruction bitmap", base.HEX))
F.i_md_ds_id = addi(ProtoField.uint16("int.md.ds_id", "Domain specific id", base.HEX))
F.i_md_ds_ins = addi(ProtoField.uint16("int.md.ds_instruction", "DS instruction", base.HEX))
F.i_md_ds_flags = addi(ProtoField.uint16("int.md.ds_flags", "DS flags", base.HEX))
F.i_hop_bytes = addi(ProtoField.uint16("int.hop_bytes", "Bytes per hop (from the bitmap)", base.DEC))
F.i_hops = addi(ProtoField.uint8("int.hops", "Hops in the stack", base.DEC))
F.i_hop = addi(ProtoField.uint8("int.hop", "Hop (stack entry, newest first)", base.DEC))
F.i_hop_ds = addi(ProtoField.bytes("int.hop.ds_metadata", "Domain-specific metadata (after the bitmap's fields)"))
F.i_tail_proto = addi(ProtoField.uint8("int.tail.next_proto", "Tail: IP protocol", base.DEC))
F.i_tail_dport = addi(ProtoField.uint16("int.tail.dst_port", "Tail: original destination port", base.DEC))
F.i_tail_dscp = addi(ProtoField.uint8("int.tail.dscp", "Tail: original DSCP", base.DEC))

-- Expert info
local E = {}
E.version = ProtoExpert.new("hopwatch.expert.version", "Unknown telemetry report version",
	expert.group.MALFORMED, expert.severity.ERROR)
E.length = ProtoExpert.new("hopwatch.expert.length", "Report length points past the packet",
	expert.group.MALFORMED, expert.severity.ERROR)
E.md_length = ProtoExpert.new("hopwatch.expert.md_length", "Metadata length does not fit",
	expert.group.MALFORMED, expert.severity.ERROR)
E.truncated = ProtoExpert.new("hopwatch.expert.truncated", "Report header truncated",
	expert.group.MALFORMED, expert.severity.ERROR)
E.note = ProtoExpert.new("hopwatch.expert.note", "Note", expert.group.PROTOCOL, expert.severity.NOTE)
E.inner = ProtoExpert.new("hopwatch.expert.inner_exception",
	"Wireshark's dissector of the (truncated) inner packet raised an exception",
	expert.group.MALFORMED, expert.severity.WARN)
E.i_version = ProtoExpert.new("int.expert.version", "Unknown INT metadata header version",
	expert.group.MALFORMED, expert.severity.ERROR)
E.i_shim_length = ProtoExpert.new("int.expert.shim_length", "INT length does not fit",
	expert.group.MALFORMED, expert.severity.ERROR)
E.i_bitmap = ProtoExpert.new("int.expert.bitmap", "Instruction bitmap does not fit the per-hop length",
	expert.group.MALFORMED, expert.severity.ERROR)
E.i_hops = ProtoExpert.new("int.expert.hops", "Hop count does not fit the stack",
	expert.group.MALFORMED, expert.severity.ERROR)
E.i_truncated = ProtoExpert.new("int.expert.truncated", "INT header truncated",
	expert.group.MALFORMED, expert.severity.ERROR)
E.i_note = ProtoExpert.new("int.expert.note", "Note", expert.group.PROTOCOL, expert.severity.NOTE)

----------------------------------------------------------------------------------------------------
-- Preferences
----------------------------------------------------------------------------------------------------
local profile_enum = { { 1, "standard", 0 }, { 2, "geant", 1 } }
hw.prefs.ports = Pref.range("Report UDP ports", "32766", "UDP destination ports of telemetry reports", 65535)
hw.prefs.names = Pref.string("Names file", "", "Node and port names by INT node id and port number: the file " ..
	"`hopwatch-analyzer topology --names-out` writes (docs/topology.md); empty = numbers only")
intp.prefs.profile = Pref.enum("Profile", 0, "standard: P4.org INT; geant: GEANT int-platform's variant " ..
	"(v1.0-style shim counting shim+MD+stack+tail, little-endian bitmap, 8-byte timestamps, " ..
	"16-bit L2 ports, DSCP 0x20/0x20)", profile_enum, false)
intp.prefs.dscp = Pref.uint("INT DSCP value", 0x17, "INT-MD over TCP/UDP is present when (DSCP & mask) == value " ..
	"(geant profile: 0x20 when left at 0x17)")
intp.prefs.dscp_mask = Pref.uint("INT DSCP mask", 0x3f, "0 turns DSCP detection off (geant: 0x20 when left at 0x3f)")
intp.prefs.port = Pref.uint("INT UDP port", 0, "UDP destination port that announces an INT shim (0 = none)")

local function geant() return intp.prefs.profile == 1 end
local function dscp_rule()
	local v, m = intp.prefs.dscp, intp.prefs.dscp_mask
	if geant() then
		if v == 0x17 then v = 0x20 end
		if m == 0x3f then m = 0x20 end
	end
	return v, m
end

----------------------------------------------------------------------------------------------------
-- Helpers
----------------------------------------------------------------------------------------------------
local dis_eth = Dissector.get("eth_withoutfcs")
local dis_ip = Dissector.get("ip")
local dis_ipv6 = Dissector.get("ipv6")
local dis_udp = Dissector.get("udp")
local dis_tcp = Dissector.get("tcp")
local dis_data = Dissector.get("data")
local udp_port_table = DissectorTable.get("udp.port")
local tcp_port_table = DissectorTable.get("tcp.port")
local gpe_table = DissectorTable.get("vxlan.next_proto")
local ip_proto_table = DissectorTable.get("ip.proto")
-- Wireshark registers Geneve by port only: take its handle from the table before replacing it
local dis_geneve = udp_port_table:get_dissector(6081)

local fx = {
	ip_src = Field.new("ip.src"), ip_dst = Field.new("ip.dst"), ip_proto = Field.new("ip.proto"),
	ip_dscp = Field.new("ip.dsfield.dscp"), ip_ecn = Field.new("ip.dsfield.ecn"),
	ip6_src = Field.new("ipv6.src"), ip6_dst = Field.new("ipv6.dst"), ip6_nxt = Field.new("ipv6.nxt"),
	ip6_dscp = Field.new("ipv6.tclass.dscp"), ip6_ecn = Field.new("ipv6.tclass.ecn"),
	udp_src = Field.new("udp.srcport"), udp_dst = Field.new("udp.dstport"),
	tcp_src = Field.new("tcp.srcport"), tcp_dst = Field.new("tcp.dstport"),
	bth_op = Field.new("infiniband.bth.opcode"), bth_qp = Field.new("infiniband.bth.destqp"),
}
local function all(f) return { f() } end

-- Call one of Wireshark's dissectors; an exception it raises (e.g. a malformed inner packet) becomes
-- expert info on `where` (if given; Wireshark adds its own "Malformed Packet" item) instead of a Lua
-- error.
local function safe_call(d, tvb, pinfo, tree, where)
	local ok, res = pcall(function() return d:call(tvb, pinfo, tree) end)
	if ok then return res end
	if where then
		where:add_proto_expert_info(E.inner, "Wireshark's dissector of the inner packet raised: " ..
			(tostring(res):gsub("^.-Dissector_call: ", "")))
	end
	return tvb:len()
end

local function bits(v, shift, width) return bit32.band(bit32.rshift(v, shift), bit32.lshift(1, width) - 1) end

-- The INT tree goes under the report being dissected when there is one (context stack).
local report_ctx = {}

local function is_all_ones(r)
	local n = r:len()
	for i = 0, n - 1 do
		if r(i, 1):uint() ~= 0xff then return false end
	end
	return true
end

-- Report metadata (TR v2.0: a node clears the RepMdBits of metadata it does not have) follows the same
-- rule as the stack and the collector (docs/records.md): only a whole word of all ones is "unavailable".

-- Unavailable: a whole metadata word (all the bytes of one bitmap bit) of all ones (INT spec: "special
-- all-ones reserved value").  A field that fills only part of a word (one 16-bit port, a 24-bit
-- occupancy) is a value even when its own bits are all ones, as the collector records it.
local function unavailable(r)
	return is_all_ones(r)
end

-- Add a whole-word hop value, or an "unavailable" marker when the word is all ones.
local function hop_val(tree, field, r, name, le)
	if unavailable(r) then
		local it = tree:add(F.unavailable, r, name)
		it:append_text(" (" .. name .. " = all ones)")
		return nil
	end
	local it
	if le then it = tree:add_le(field, r) else it = tree:add(field, r) end
	return it
end

-- Add a field that is part of a word: always a value (the word was checked as a whole).
local function part_val(tree, field, r, le)
	local it
	if le then it = tree:add_le(field, r) else it = tree:add(field, r) end
	if is_all_ones(r) then it:append_text(" (all ones, a value: the word is not all ones)") end
	return it
end

-- Names of nodes and ports from the names file (lines "node ID NAME" and "port ID PORT IFNAME", tab
-- separated), read again whenever the preference names another file.
local names = { node = {}, port = {}, from = nil }
local function load_names()
	local path = hw.prefs.names
	if path == names.from then return end
	names.node, names.port, names.from = {}, {}, path
	if path == "" then return end
	local f = io.open(path, "r")
	if not f then return end
	for line in f:lines() do
		local id, name = line:match("^node\t(%d+)\t(.*)$")
		if id then
			names.node[tonumber(id)] = name
		else
			local nid, port, ifname = line:match("^port\t(%d+)\t(%d+)\t(.*)$")
			if nid then names.port[nid .. ":" .. port] = ifname end
		end
	end
	f:close()
end

-- The node whose hop is being decoded, so that its ports can be named (nil: not known for this hop).
local cur_node = nil

-- A node id item (report or hop), with its name when the names file has it.
local function add_node(tree, field, r)
	load_names()
	local it = tree:add(field, r)
	local id = r:uint()
	if field == F.node_id then cur_node = id end
	if names.node[id] then it:add(F.node_name, names.node[id]):set_generated() end
	return it
end

local function name_port(it, port)
	local n = cur_node and names.port[cur_node .. ":" .. port]
	if it and n then it:add(F.port_name, n):set_generated() end
end

----------------------------------------------------------------------------------------------------
-- INT metadata: instruction tables per version
----------------------------------------------------------------------------------------------------
-- each entry: { bit mask, size in bytes, decoder(tree, range) }
local function dec_node(t, r)
	load_names()
	local it = hop_val(t, F.node_id, r, "node_id")
	if it then
		cur_node = r:uint()
		if names.node[cur_node] then it:add(F.node_name, names.node[cur_node]):set_generated() end
	end
end
local function dec_ports(t, r)
	if unavailable(r) then
		t:add(F.unavailable, r, "ports"):append_text(" (ingress/egress ports = all ones)")
		return
	end
	name_port(part_val(t, F.ingress_port, r(0, 2)), r(0, 2):uint())
	if is_all_ones(r(2, 2)) then
		-- egress all ones with an ingress port: no egress chosen (a drop), recorded as 4294967295
		-- (HW_PORT_NONE, docs/records.md), not port 65535
		t:add(F.egress_port, r(2, 2), 0xFFFFFFFF):append_text(" (none: no egress port chosen)")
		return
	end
	name_port(part_val(t, F.egress_port, r(2, 2)), r(2, 2):uint())
end
local function dec_latency(t, r) hop_val(t, F.hop_latency, r, "hop_latency") end
local function dec_queue(t, r)
	if unavailable(r) then
		t:add(F.unavailable, r, "queue"):append_text(" (queue id/occupancy = all ones)")
		return
	end
	t:add(F.queue_id, r(0, 1))
	part_val(t, F.queue_occupancy, r(1, 3))
end
local function dec_ig_ts(t, r) hop_val(t, F.ingress_ts, r, "ingress_ts") end
local function dec_eg_ts(t, r) hop_val(t, F.egress_ts, r, "egress_ts") end
local function dec_l2_ports(t, r)
	local h = r:len() / 2
	if unavailable(r) then
		t:add(F.unavailable, r, "l2_ports"):append_text(" (L2 ports = all ones)")
		return
	end
	part_val(t, F.l2_ingress_port, r(0, h))
	part_val(t, F.l2_egress_port, r(h, h))
end
local function dec_tx_util(t, r) hop_val(t, F.egress_tx_util, r, "egress_tx_util") end
local function dec_buffer(t, r)
	if unavailable(r) then
		t:add(F.unavailable, r, "buffer"):append_text(" (buffer id/occupancy = all ones)")
		return
	end
	t:add(F.buffer_id, r(0, 1))
	part_val(t, F.buffer_occupancy, r(1, 3))
end
local function dec_cong(t, r)
	t:add(F.cong_queue_id, r(0, 1))
	t:add(F.queue_cong, r(1, 3))
end
local function dec_checksum(t, r) t:add(F.checksum, r) end
local function dec_reserved(t, r) t:add(F.reserved_md, r) end

local function ins_table(version)
	local t = {}
	if version == "0.5" then
		t = { { 0x8000, 4, dec_node }, { 0x4000, 4, dec_ports }, { 0x2000, 4, dec_latency },
			{ 0x1000, 4, dec_queue }, { 0x0800, 4, dec_ig_ts }, { 0x0400, 4, dec_eg_ts },
			{ 0x0200, 4, dec_cong }, { 0x0100, 4, dec_tx_util } }
		for b = 7, 0, -1 do t[#t + 1] = { bit32.lshift(1, b), 4, dec_reserved } end
	elseif version == "1.0" or version == "geant" then
		local ts = (version == "geant") and 8 or 4
		local l2 = (version == "geant") and 4 or 8
		t = { { 0x8000, 4, dec_node }, { 0x4000, 4, dec_ports }, { 0x2000, 4, dec_latency },
			{ 0x1000, 4, dec_queue }, { 0x0800, ts, dec_ig_ts }, { 0x0400, ts, dec_eg_ts },
			{ 0x0200, l2, dec_l2_ports }, { 0x0100, 4, dec_tx_util } }
		for b = 7, 1, -1 do t[#t + 1] = { bit32.lshift(1, b), 4, dec_reserved } end
		t[#t + 1] = { 0x0001, 4, dec_checksum }
	else -- 2.1
		t = { { 0x8000, 4, dec_node }, { 0x4000, 4, dec_ports }, { 0x2000, 4, dec_latency },
			{ 0x1000, 4, dec_queue }, { 0x0800, 8, dec_ig_ts }, { 0x0400, 8, dec_eg_ts },
			{ 0x0200, 8, dec_l2_ports }, { 0x0100, 4, dec_tx_util }, { 0x0080, 4, dec_buffer } }
		for b = 6, 1, -1 do t[#t + 1] = { bit32.lshift(1, b), 4, dec_reserved } end
		t[#t + 1] = { 0x0001, 4, dec_checksum }
	end
	return t
end
local INS = { ["0.5"] = ins_table("0.5"), ["1.0"] = ins_table("1.0"), ["geant"] = ins_table("geant"),
	["2.1"] = ins_table("2.1") }

local function hop_size(tbl, bitmap)
	local n = 0
	for _, e in ipairs(tbl) do
		if bit32.band(bitmap, e[1]) ~= 0 then n = n + e[2] end
	end
	return n
end

-- Decode one hop of `size` bytes at r; 32-bit timestamps without a latency field give a derived
-- (generated) hop latency = egress - ingress mod 2^32.
local function decode_hop(t, r, tbl, bitmap, ts32)
	local off = 0
	cur_node = nil -- named by this hop's own node id word, when it has one
	local ig, eg, lat_unavailable
	for _, e in ipairs(tbl) do
		if bit32.band(bitmap, e[1]) ~= 0 then
			local fr = r(off, e[2])
			e[3](t, fr)
			if e[1] == 0x0800 then ig = fr end
			if e[1] == 0x0400 then eg = fr end
			if e[1] == 0x2000 and is_all_ones(fr) then lat_unavailable = true end
			off = off + e[2]
		end
	end
	if ts32 and (bit32.band(bitmap, 0x2000) == 0 or lat_unavailable) and ig and eg and ig:len() == 4 and eg:len() == 4
		and not is_all_ones(ig) and not is_all_ones(eg) then
		local lat = (eg:uint() - ig:uint()) % 4294967296
		t:add(F.hop_latency, eg, lat):set_generated()
	end
end

----------------------------------------------------------------------------------------------------
-- INT-MD: shim + metadata header + stack.  `kind`: "l4" (after TCP/UDP), "gpe" (after VXLAN-GPE,
-- np = GPE next protocol), "geneve" (option data: MD header + stack, length given).
-- Returns the number of bytes of INT headers consumed (0 when this is not INT), the next protocol
-- information and the original DSCP/port if any.
----------------------------------------------------------------------------------------------------
local function int_tree_parent(tree)
	local ctx = report_ctx[#report_ctx]
	if ctx then return ctx.tree end
	return tree
end

-- MD header + stack at tvb[off .. off+len).  Returns true on success.
local function decode_md(tvb, pinfo, it, off, len, version, with_tail)
	local total = tvb:len()
	if off + len > total then
		it:add_tvb_expert_info(E.i_shim_length, tvb(off, total - off),
			string.format("INT length %d bytes points past the packet (%d bytes left)", len, total - off))
		return false
	end
	local hdr_len = (version == "2.1") and 12 or 8
	if len < hdr_len then
		it:add_tvb_expert_info(E.i_shim_length, tvb(off, math.max(0, math.min(len, total - off))),
			string.format("INT length %d bytes is shorter than the metadata header (%d)", len, hdr_len))
		return false
	end
	local md = tvb(off, hdr_len)
	local mt = it:add(F.i_md, md)
	local ver = md(0, 1):bitfield(0, 4)
	local vi = mt:add(F.i_md_ver, md(0, 1), ver)
	local want = ({ ["2.1"] = 2, ["1.0"] = 1, ["0.5"] = 0, ["geant"] = 1 })[version]
	if version == "geant" and ver ~= 1 and md(0, 1):bitfield(0, 2) == 1 then
		-- GEANT's int_p4c-dpdk (2601_double_header.pcap) writes 0x40: a 2-bit version 1
		vi:append_text(" (first 2 bits: version 1, GEANT int_p4c-dpdk layout)")
		ver = 1
	end
	if ver ~= want then
		vi:add_proto_expert_info(E.i_version, string.format("INT metadata header version %d (expected %d for INT %s)",
			ver, want, version == "geant" and "1.0 (geant)" or version))
		return false
	end
	local bitmap
	local tbl = INS[version]
	local hop_ml, hop_bytes
	local ds_bytes = 0 -- per hop, after the bitmap's fields (domain-specific metadata)
	if version == "0.5" then
		mt:add(F.i_md_rep, md(0, 1), md(0, 1):bitfield(4, 2))
		mt:add(F.i_md_c, md(0, 1), md(0, 1):bitfield(6, 1) == 1)
		mt:add(F.i_md_e, md(0, 1), md(0, 1):bitfield(7, 1) == 1)
		hop_ml = md(1, 1):bitfield(3, 5)
		mt:add(F.i_md_ins_cnt, md(1, 1), hop_ml)
		mt:add(F.i_md_max_hop, md(2, 1))
		mt:add(F.i_md_total_hop, md(3, 1))
		bitmap = md(4, 2):uint()
		mt:add(F.i_md_bitmap, md(4, 2))
	else
		if version == "2.1" then
			mt:add(F.i_md_d, md(0, 1), md(0, 1):bitfield(4, 1) == 1)
			mt:add(F.i_md_e, md(0, 1), md(0, 1):bitfield(5, 1) == 1)
			mt:add(F.i_md_m, md(0, 1), md(0, 1):bitfield(6, 1) == 1)
		else
			mt:add(F.i_md_rep, md(0, 1), md(0, 1):bitfield(4, 2))
			mt:add(F.i_md_c, md(0, 1), md(0, 1):bitfield(6, 1) == 1)
			mt:add(F.i_md_e, md(0, 1), md(0, 1):bitfield(7, 1) == 1)
			mt:add(F.i_md_m, md(1, 1), md(1, 1):bitfield(0, 1) == 1)
		end
		hop_ml = md(2, 1):bitfield(3, 5)
		mt:add(F.i_md_hop_ml, md(2, 1), hop_ml)
		mt:add(F.i_md_rhc, md(3, 1))
		if version == "geant" then
			bitmap = md(4, 2):le_uint()
			mt:add_le(F.i_md_bitmap, md(4, 2)):append_text(" (stored little-endian: geant)")
		else
			bitmap = md(4, 2):uint()
			mt:add(F.i_md_bitmap, md(4, 2))
		end
		if version == "2.1" then
			mt:add(F.i_md_ds_id, md(6, 2))
			mt:add(F.i_md_ds_ins, md(8, 2))
			mt:add(F.i_md_ds_flags, md(10, 2))
		end
	end
	hop_bytes = hop_size(tbl, bitmap)
	mt:add(F.i_hop_bytes, md(4, 2), hop_bytes):set_generated()
	local stack_off = off + hdr_len
	local stack_len = len - hdr_len
	local tail
	if with_tail then
		if stack_len < 4 then
			it:add_tvb_expert_info(E.i_shim_length, tvb(off, len), "INT length leaves no room for the tail header")
			return false
		end
		stack_len = stack_len - 4
		tail = tvb(stack_off + stack_len, 4)
	end
	if hop_bytes == 0 then
		it:add_proto_expert_info(E.i_bitmap, "Empty instruction bitmap")
		return false
	end
	if version == "geant" then
		-- hop_ml is the instruction count (or the true words); the bitmap gives the hop size
		if tail == nil and stack_len % hop_bytes == 4 and stack_len >= 4 then
			-- a geant tail is present (the shim length counts it)
			stack_len = stack_len - 4
			tail = tvb(stack_off + stack_len, 4)
		end
	elseif version == "0.5" then
		local cnt = 0
		for _, e in ipairs(tbl) do if bit32.band(bitmap, e[1]) ~= 0 then cnt = cnt + 1 end end
		if cnt ~= hop_ml then
			mt:add_proto_expert_info(E.i_bitmap, string.format(
				"Instruction bitmap 0x%04x has %d instructions, ins_cnt says %d", bitmap, cnt, hop_ml))
			return false
		end
	else
		-- Hop ML counts every word of a hop: the bitmap's fields, then (v2.1) domain-specific metadata,
		-- which is shown as bytes (the collector reads the bitmap's fields and passes over the rest)
		if hop_bytes > hop_ml * 4 then
			mt:add_proto_expert_info(E.i_bitmap, string.format(
				"Instruction bitmap 0x%04x needs %d bytes per hop, hop_ml says %d words (%d bytes)",
				bitmap, hop_bytes, hop_ml, hop_ml * 4))
			return false
		end
		ds_bytes = hop_ml * 4 - hop_bytes
		hop_bytes = hop_ml * 4
	end
	if bit32.band(bitmap, (version == "2.1") and 0x007e or ((version == "0.5") and 0x00ff or 0x00fe)) ~= 0 then
		mt:add_proto_expert_info(E.i_note, string.format("Reserved instruction bits set (0x%04x)", bitmap))
	end
	local nhops = math.floor(stack_len / hop_bytes)
	local hi = it:add(F.i_hops, tvb(stack_off, stack_len), nhops)
	hi:set_generated()
	if stack_len % hop_bytes ~= 0 then
		hi:add_proto_expert_info(E.i_hops, string.format(
			"Stack of %d bytes is not a whole number of %d-byte hops", stack_len, hop_bytes))
		return false
	end
	if version == "0.5" then
		local total_hops = md(3, 1):uint()
		if total_hops ~= nhops then
			hi:add_proto_expert_info(E.i_hops, string.format(
				"Total hop count %d, the stack holds %d hops", total_hops, nhops))
			return false
		end
	end
	local ts32 = (version == "1.0" or version == "0.5")
	for h = 0, nhops - 1 do
		local r = tvb(stack_off + h * hop_bytes, hop_bytes)
		local ht = it:add(F.i_hop, r, h)
		ht:append_text(h == 0 and " (newest)" or "")
		decode_hop(ht, r(0, hop_bytes - ds_bytes), tbl, bitmap, ts32)
		if ds_bytes > 0 then ht:add(F.i_hop_ds, r(hop_bytes - ds_bytes, ds_bytes)) end
	end
	if tail then
		local tt = it:add(F.i_tail, tail)
		tt:add(F.i_tail_proto, tail(0, 1))
		tt:add(F.i_tail_dport, tail(1, 2))
		tt:add(F.i_tail_dscp, tail(3, 1))
	end
	return true, tail
end

-- Is there INT at tvb[0..]?  Decode it.  Returns consumed bytes or 0, plus extra info.
-- how: "dscp" | "port" | "gpe" | "geneve"
local function decode_int_checked(tvb, pinfo, tree, kind, how, np)
	local total = tvb:len()
	if total < 4 then return 0 end
	local b0 = tvb(0, 1):uint()
	local version, shim_len, info = nil, nil, {}
	local parent = int_tree_parent(tree)
	if kind == "gpe" then
		-- GPE next protocol says the version: 0x82 v2.x, 0x08 v1.0, 0x05 v0.5
		if np == 0x82 then version = "2.1" elseif np == 0x08 then version = "1.0" else version = "0.5" end
	elseif geant() then
		version = "geant"
	elseif bit32.rshift(b0, 4) ~= 0 then
		version = "2.1"
	else
		if total < 5 then return 0 end
		local mv = bit32.rshift(tvb(4, 1):uint(), 4)
		if mv == 1 then version = "1.0" elseif mv == 0 then version = "0.5" else version = "1.0" end
	end
	-- sanity: the shim type must be 1..3, otherwise this is not INT (false DSCP/port match)
	local stype = (version == "2.1") and bit32.rshift(b0, 4) or b0
	if stype < 1 or stype > 3 then return 0 end

	local it = parent:add(intp, tvb(0, math.min(total, 4)))
	it:add(F.i_detect, tvb(0, 0), how):set_generated()
	local shim = tvb(0, 4)
	local st = it:add(F.i_shim, shim)
	local body_len, consumed
	if version == "2.1" then
		st:add(F.i_shim_type, shim(0, 1), stype)
		if kind == "gpe" then
			-- INT v2.1 GPE shim: Type:4 Rsvd:4 | Length:8 | G:1 Reserved:7 | Next Protocol:8
			st:add(F.i_shim_g, shim(2, 1), shim(2, 1):bitfield(0, 1) == 1)
		else
			st:add(F.i_shim_npt, shim(0, 1), shim(0, 1):bitfield(4, 2))
		end
		shim_len = shim(1, 1):uint()
		st:add(F.i_shim_len, shim(1, 1)):append_text(" (MD header + stack, not counting the shim)")
		body_len = shim_len * 4
		consumed = 4 + body_len
		if kind == "gpe" then
			st:add(F.i_shim_rsvd, shim(2, 1))
			st:add(F.i_shim_np, shim(3, 1))
			info.next_proto = shim(3, 1):uint()
		else
			local npt = shim(0, 1):bitfield(4, 2)
			if npt == 0 then
				st:add(F.i_shim_dscp, shim(3, 1), shim(3, 1):bitfield(0, 6))
				info.dscp = shim(3, 1):bitfield(0, 6)
			elseif npt == 1 then
				st:add(F.i_shim_dport, shim(2, 2))
				info.dport = shim(2, 2):uint()
			elseif npt == 2 then
				st:add(F.i_shim_proto, shim(3, 1))
				info.ip_proto = shim(3, 1):uint()
			end
		end
	else
		st:add(F.i_shim_type, shim(0, 1), stype)
		st:add(F.i_shim_rsvd, shim(1, 1))
		shim_len = shim(2, 1):uint()
		st:add(F.i_shim_len, shim(2, 1)):append_text(version == "0.5" and kind ~= "gpe" and
			" (counting the shim and the tail)" or " (counting the shim)")
		consumed = shim_len * 4
		body_len = consumed - 4
		if kind == "gpe" then
			st:add(F.i_shim_np, shim(3, 1))
			info.next_proto = shim(3, 1):uint()
		elseif version == "1.0" then
			st:add(F.i_shim_dscp, shim(3, 1), shim(3, 1):bitfield(0, 6))
			info.dscp = shim(3, 1):bitfield(0, 6)
		elseif version == "geant" then
			st:add(F.i_shim_rsvd, shim(3, 1))
		end
	end
	it:add(F.i_version, tvb(0, 0), version == "geant" and "1.0" or version):set_generated()
	it:append_text(", INT " .. (version == "geant" and "1.0 (geant profile)" or version))
	if body_len < 0 then
		st:add_proto_expert_info(E.i_shim_length, string.format("Shim length %d words is shorter than the shim", shim_len))
		return -1, info
	end
	if consumed > total then
		st:add_proto_expert_info(E.i_shim_length, string.format(
			"Shim length %d bytes points past the packet (%d bytes left)", consumed, total))
		return -1, info
	end
	it:set_len(consumed)
	local with_tail = (version == "0.5" and kind ~= "gpe")
	local ok, tail = decode_md(tvb, pinfo, it, 4, body_len, version, with_tail)
	if not ok then return -1, info end
	if tail then
		info.tail_proto = tail(0, 1):uint()
		info.dport = tail(1, 2):uint()
		info.dscp = tail(3, 1):uint()
	end
	if version == "geant" and not tail then info.dscp = nil end
	return consumed, info
end

E.i_internal = ProtoExpert.new("int.expert.internal", "Dissector error (please report it with the capture)",
	expert.group.MALFORMED, expert.severity.ERROR)

-- Every read is range-checked; this only turns a remaining mistake into expert info, not a Lua error.
local function decode_int(tvb, pinfo, tree, kind, how, np)
	local ok, n, info = pcall(decode_int_checked, tvb, pinfo, tree, kind, how, np)
	if ok then return n, info end
	int_tree_parent(tree):add_proto_expert_info(E.i_internal, "Dissector error: " .. tostring(n))
	return -1, {}
end

----------------------------------------------------------------------------------------------------
-- INT over TCP/UDP: a wrapper on ip.proto 6 and 17 decides whether the L4 payload starts with INT
-- (DSCP or UDP port), and if so lets Wireshark's UDP/TCP dissector run with the payload dissector
-- below temporarily registered on the packet's ports.
----------------------------------------------------------------------------------------------------
-- While a wrapped UDP/TCP dissector runs: { how = "dscp"|"port", l4, sport, dport, saved = { [port] =
-- the dissector the port table had before (false: none) } }
local pending = nil

local int_payload = Proto("int_payload", "INT-MD after TCP/UDP")

-- The L4 payload after the INT headers (or all of it when it was no INT after all) goes to the
-- dissector of the (original) ports, lower port first as Wireshark's UDP/TCP do, else to data.
local function payload_after_int(rest, pinfo, tree, p, dport)
	if rest:len() == 0 then return end
	local tbl = (p.l4 == "tcp") and tcp_port_table or udp_port_table
	local lo, hi = math.min(dport, p.sport), math.max(dport, p.sport)
	for _, port in ipairs({ lo, hi }) do
		local d
		if p.saved[port] ~= nil then d = p.saved[port] or nil else d = tbl:get_dissector(port) end
		if d then
			local n = safe_call(d, rest, pinfo, tree, nil)
			if n and n > 0 then return end
		end
	end
	safe_call(dis_data, rest, pinfo, tree, nil)
end

function int_payload.dissector(tvb, pinfo, tree)
	local p = pending
	if not p then return 0 end
	pending = nil
	local n, info = decode_int(tvb, pinfo, tree, "l4", p.how)
	if n == 0 then
		-- DSCP or port matched but no INT shim: the payload goes where it would have gone
		payload_after_int(tvb, pinfo, tree, p, p.dport)
		return tvb:len()
	end
	if n < 0 then return tvb:len() end
	pinfo.cols.protocol:append("/INT")
	local dport = (info and info.dport) or p.dport
	if n < tvb:len() and info and info.ip_proto then
		-- NPT=2: the original L4 header follows the INT stack
		local d = (info.ip_proto == 17 and dis_udp) or (info.ip_proto == 6 and dis_tcp) or
			ip_proto_table:get_dissector(info.ip_proto) or dis_data
		safe_call(d, tvb(n):tvb(), pinfo, tree, nil)
	elseif n < tvb:len() then
		payload_after_int(tvb(n):tvb(), pinfo, tree, p, dport)
	end
	return tvb:len()
end

-- DSCP of the IP header that carries this L4 header: the IPv4/IPv6 traffic class field with the
-- largest offset before the L4 header in the same data source.
local function enclosing_dscp(tvb)
	local pos = tvb:offset()
	local best, bestoff = nil, -1
	for _, f in ipairs(all(fx.ip_dscp)) do
		if f.offset < pos and f.offset > bestoff then best, bestoff = f.value, f.offset end
	end
	for _, f in ipairs(all(fx.ip6_dscp)) do
		if f.offset < pos and f.offset > bestoff then best, bestoff = f.value, f.offset end
	end
	return best
end

local function l4_wrapper(l4)
	return function(tvb, pinfo, tree)
		local real = (l4 == "udp") and dis_udp or dis_tcp
		local hdr
		if l4 == "udp" then hdr = 8 else
			if tvb:len() >= 13 then hdr = tvb(12, 1):bitfield(0, 4) * 4 else hdr = 0 end
		end
		local how
		if hdr >= 8 and tvb:len() >= hdr + 4 then
			local sport, dport = tvb(0, 2):uint(), tvb(2, 2):uint()
			if l4 == "udp" and intp.prefs.port ~= 0 and dport == intp.prefs.port then
				how = "port"
			else
				local v, m = dscp_rule()
				local dscp = enclosing_dscp(tvb)
				if m ~= 0 and dscp and bit32.band(dscp, m) == v then how = "dscp" end
			end
			if how and not (l4 == "udp" and (dport == 4790 or dport == 6081)) then
				local tbl = (l4 == "udp") and udp_port_table or tcp_port_table
				local saved = {}
				for _, port in ipairs({ sport, dport }) do
					if saved[port] == nil then
						saved[port] = tbl:get_dissector(port) or false
						tbl:add(port, int_payload)
					end
				end
				pending = { how = how, l4 = l4, sport = sport, dport = dport, saved = saved }
				pcall(safe_call, real, tvb, pinfo, tree, nil)
				local missed = pending
				pending = nil
				for port, d in pairs(saved) do
					if d then tbl:add(port, d) else tbl:remove(port, int_payload) end
				end
				if missed then
					-- the UDP/TCP dissector did not hand its payload on (e.g. a TCP segment it
					-- considers out of order or a retransmission): decode the INT headers here
					pending = missed
					pcall(int_payload.dissector, tvb(hdr):tvb(), pinfo, tree)
					pending = nil
				end
				return tvb:len()
			end
		end
		return safe_call(real, tvb, pinfo, tree, nil)
	end
end

local int_udp = Proto("int_udp", "UDP (INT-MD detection)")
local int_tcp = Proto("int_tcp", "TCP (INT-MD detection)")
int_udp.dissector = l4_wrapper("udp")
int_tcp.dissector = l4_wrapper("tcp")

----------------------------------------------------------------------------------------------------
-- VXLAN-GPE: INT as a GPE next protocol (0x82 v2.x, 0x08 v1.0, 0x05 v0.5)
----------------------------------------------------------------------------------------------------
local int_gpe = Proto("int_gpe", "INT-MD over VXLAN-GPE")
function int_gpe.dissector(tvb, pinfo, tree)
	-- the GPE next protocol is the byte before us (VXLAN-GPE header byte 3)
	local np = tonumber(pinfo.private["hopwatch_gpe_np"] or "130") or 0x82
	local n, info = decode_int(tvb, pinfo, tree, "gpe", "VXLAN-GPE next protocol", np)
	if n <= 0 then return tvb:len() end
	pinfo.cols.protocol:append("/INT")
	if info.next_proto and n < tvb:len() then
		local d = gpe_table:get_dissector(info.next_proto) or dis_data
		safe_call(d, tvb(n):tvb(), pinfo, tree, nil)
	end
	return tvb:len()
end
local function gpe_np_dissector(np)
	local p = Proto("int_gpe_" .. string.format("%02x", np), string.format("INT over VXLAN-GPE (0x%02x)", np))
	function p.dissector(tvb, pinfo, tree)
		pinfo.private["hopwatch_gpe_np"] = tostring(np)
		return int_gpe.dissector(tvb, pinfo, tree)
	end
	return p
end
local gpe_82, gpe_08, gpe_05 = gpe_np_dissector(0x82), gpe_np_dissector(0x08), gpe_np_dissector(0x05)

----------------------------------------------------------------------------------------------------
-- Geneve: INT-MD as option class 0x0103, type 1 (the high bit of the type is Geneve's critical flag;
-- types 2 INT-Destination and 3 INT-MX carry no hop stack); the packet then goes to Wireshark's Geneve
-- dissector
----------------------------------------------------------------------------------------------------
local int_geneve = Proto("int_geneve", "INT-MD in Geneve options")
function int_geneve.dissector(tvb, pinfo, tree)
	local total = tvb:len()
	if total >= 8 then
		local optlen = tvb(0, 1):bitfield(2, 6) * 4
		local off, stop = 8, math.min(8 + optlen, total)
		while off + 4 <= stop do
			local cls, typ = tvb(off, 2):uint(), tvb(off + 2, 1):uint()
			local olen = tvb(off + 3, 1):bitfield(3, 5) * 4
			if cls == 0x0103 and bit32.band(typ, 0x7f) == 1 then
				local parent = int_tree_parent(tree)
				local it = parent:add(intp, tvb(off, math.min(4 + olen, total - off)))
				it:add(F.i_detect, tvb(off, 0), "Geneve option class 0x0103"):set_generated()
				it:add(F.i_geneve_class, tvb(off, 2))
				it:add(F.i_geneve_type, tvb(off + 2, 1))
				it:add(F.i_geneve_len, tvb(off + 3, 1), olen / 4)
				local ver = (off + 4 < total) and bit32.rshift(tvb(off + 4, 1):uint(), 4) or -1
				local version = (ver == 2) and "2.1" or ((ver == 1) and "1.0" or ((ver == 0) and "0.5" or nil))
				if geant() then version = "geant" end
				if version then
					it:add(F.i_version, tvb(off, 0), version == "geant" and "1.0" or version):set_generated()
					it:append_text(", INT " .. version)
					decode_md(tvb, pinfo, it, off + 4, olen, version, false)
				else
					it:add_proto_expert_info(E.i_version, string.format("Unknown INT metadata header version %d", ver))
				end
				pinfo.cols.protocol:append("/INT")
			end
			off = off + 4 + olen
		end
	end
	return safe_call(dis_geneve, tvb, pinfo, tree, nil)
end

----------------------------------------------------------------------------------------------------
-- Telemetry reports
----------------------------------------------------------------------------------------------------
local function ip_value(f) return tostring(f.value) end

-- Dissect a report's inner packet with Wireshark's dissectors and copy its (innermost) IP flow into
-- the report tree.
-- Does the report's copy of the packet end inside its headers?  The collector's rule (docs/records.md,
-- report flag inner_truncated), walked over the same headers: Ethernet, up to 3 VLAN tags and an MPLS stack
-- of up to 8 entries; IPv4 (20 B, then its IHL) or IPv6 (40 B, then up to 8 extension headers); the UDP
-- (8 B) or TCP (20 B, then its data offset) header of a first fragment; a VXLAN-GPE (UDP 4790, 8 B) or
-- Geneve (UDP 6081, 8 B + options) header after UDP.  A header that is there but wrong is not a cut.
-- t: the copy (a Tvb), nil when the report holds none of it.
local IPV6_EXT = { [0] = 8, [43] = 8, [60] = 8, [135] = 8, [139] = 8, [140] = 8 }
local function inner_cut(t, kind)
	local n = t and t:len() or 0
	local off, et = 0, (kind == "ipv6") and 0x86dd or 0x0800
	if kind == "eth" then
		if n < 14 then return true end
		et, off = t(12, 2):uint(), 14
		for _ = 1, 3 do
			if et ~= 0x8100 and et ~= 0x88a8 and et ~= 0x9100 then break end
			if off + 4 > n then return true end
			et, off = t(off + 2, 2):uint(), off + 4
		end
		if et == 0x8847 or et == 0x8848 then
			et = 0
			for _ = 1, 8 do
				if off + 4 > n then return true end
				local bos = bit32.band(t(off + 2, 1):uint(), 1)
				off = off + 4
				if bos == 1 then
					if off + 1 > n then return true end
					local v = bit32.rshift(t(off, 1):uint(), 4)
					et = (v == 4 and 0x0800) or (v == 6 and 0x86dd) or 0
					break
				end
			end
		end
	end
	local proto, l4, l3_end, first
	if et == 0x0800 then
		if off + 20 > n then return true end
		local b0 = t(off, 1):uint()
		local ihl = bit32.band(b0, 15) * 4
		if bit32.rshift(b0, 4) ~= 4 or ihl < 20 then return false end
		if off + ihl > n then return true end
		local tot = t(off + 2, 2):uint()
		l3_end = (tot >= ihl and tot <= n - off) and off + tot or n
		proto, l4 = t(off + 9, 1):uint(), off + ihl
		first = bit32.band(t(off + 6, 2):uint(), 0x1fff) == 0
	elseif et == 0x86dd then
		if off + 40 > n then return true end
		if bit32.rshift(t(off, 1):uint(), 4) ~= 6 then return false end
		local plen = t(off + 4, 2):uint()
		l3_end = (plen <= n - off - 40) and off + 40 + plen or n
		local nh, pos = t(off + 6, 1):uint(), off + 40
		first = true
		for _ = 1, 8 do
			local elen
			if IPV6_EXT[nh] or nh == 51 then
				if pos + 2 > l3_end then return true end
				elen = (nh == 51) and (t(pos + 1, 1):uint() + 2) * 4 or (t(pos + 1, 1):uint() + 1) * 8
			elseif nh == 44 then
				if pos + 8 > l3_end then return true end
				elen = 8
				if bit32.rshift(t(pos + 2, 2):uint(), 3) ~= 0 then first = false end
			else
				break
			end
			if pos + elen > l3_end then return true end
			nh, pos = t(pos, 1):uint(), pos + elen
		end
		proto, l4 = nh, pos
		if nh == 59 then first = false end
	else
		return false -- not IP: no flow, nothing to cut
	end
	if not first or (proto ~= 17 and proto ~= 6) then return false end
	if proto == 6 then
		if l4 + 20 > l3_end then return true end
		local doff = bit32.rshift(t(l4 + 12, 1):uint(), 4) * 4
		return doff < 20 or l4 + doff > l3_end
	end
	if l4 + 8 > l3_end then return true end
	local dport, ulen = t(l4 + 2, 2):uint(), t(l4 + 4, 2):uint()
	local pl_end = (ulen >= 8 and ulen <= l3_end - l4) and l4 + ulen or l3_end
	if dport == 4790 then return l4 + 16 > pl_end end
	if dport == 6081 then
		if l4 + 16 > pl_end then return true end
		return l4 + 16 + bit32.band(t(l4 + 8, 1):uint(), 0x3f) * 4 > pl_end
	end
	return false
end

local function flag_cut(rt, t, kind)
	if inner_cut(t, kind) then rt:add(F.r_flag_cut, true):set_generated() end
end

local function dissect_inner(inner, pinfo, tree, rt, kind)
	if inner:len() == 0 then return end
	local before = {}
	for k, f in pairs(fx) do before[k] = #all(f) end
	local d = (kind == "eth") and dis_eth or ((kind == "ipv4") and dis_ip or ((kind == "ipv6") and dis_ipv6 or dis_data))
	report_ctx[#report_ctx + 1] = { tree = rt }
	local ok, err = pcall(safe_call, d, inner, pinfo, tree, rt)
	report_ctx[#report_ctx] = nil
	if not ok then rt:add_proto_expert_info(E.inner, tostring(err)) end
	-- copy the last IP header's flow (the tenant packet for tunnels)
	local function news(k) local a = all(fx[k]); local r = {}; for i = before[k] + 1, #a do r[#r + 1] = a[i] end; return r end
	local best, bestoff, v6 = nil, -1, false
	local src4, dst4, pr4, ds4, ec4 = news("ip_src"), news("ip_dst"), news("ip_proto"), news("ip_dscp"), news("ip_ecn")
	local src6, dst6, nx6, ds6, ec6 = news("ip6_src"), news("ip6_dst"), news("ip6_nxt"), news("ip6_dscp"), news("ip6_ecn")
	for i, f in ipairs(src4) do if f.offset > bestoff then best, bestoff, v6 = i, f.offset, false end end
	for i, f in ipairs(src6) do if f.offset > bestoff then best, bestoff, v6 = i, f.offset, true end end
	if not best then return end
	local ft = rt:add(F.flow, inner(0, 0))
	ft:set_generated()
	local function put(field, arr, conv)
		local f = arr[best]
		if f then ft:add(field, inner(0, 0), conv and conv(f) or f.value):set_generated() end
	end
	if v6 then
		put(F.flow_src, src6, ip_value); put(F.flow_dst, dst6, ip_value); put(F.flow_proto, nx6)
		put(F.flow_dscp, ds6); put(F.flow_ecn, ec6)
	else
		put(F.flow_src, src4, ip_value); put(F.flow_dst, dst4, ip_value); put(F.flow_proto, pr4)
		put(F.flow_dscp, ds4); put(F.flow_ecn, ec4)
	end
	-- the L4 header right after that IP header
	local l4best, l4off, l4arr
	for _, pair in ipairs({ { news("udp_src"), news("udp_dst") }, { news("tcp_src"), news("tcp_dst") } }) do
		for i, f in ipairs(pair[1]) do
			if f.offset > bestoff and (l4off == nil or f.offset < l4off) then l4best, l4off, l4arr = i, f.offset, pair end
		end
	end
	if l4best then
		ft:add(F.flow_sport, inner(0, 0), l4arr[1][l4best].value):set_generated()
		ft:add(F.flow_dport, inner(0, 0), l4arr[2][l4best].value):set_generated()
	end
	-- RoCEv2: Wireshark's InfiniBand dissector's BTH of the inner packet
	local op, qp = news("bth_op"), news("bth_qp")
	if #op > 0 and op[#op].offset > bestoff then
		ft:add(F.flow_roce_op, inner(0, 0), op[#op].value):set_generated()
		if #qp > 0 then ft:add(F.flow_roce_qp, inner(0, 0), qp[#qp].value):set_generated() end
	end
end

-- InType 1 (TR v2.0 "Individual Report Inner Contents for InType 1"): TLVs of TLVType:4 Rsvd:4 |
-- TLVLength:8 (words of data) | Data Template:16, then the data.  As the collector: the first TLV of
-- type 1, 2 or 3 is the truncated packet the flow comes from; type 0 and reserved types are shown and
-- passed over; a TLV past the report is a report length error (false: stop the report).
local tlv_kinds = { [1] = "eth", [2] = "ipv4", [3] = "ipv6" }
local function dissect_tlvs(inner, pinfo, tree, rt)
	local pos, have, n = 0, false, inner:len()
	while pos < n do
		if pos + 4 > n then
			rt:add_proto_expert_info(E.length, string.format("TLV header at offset %d needs 4 bytes, %d left", pos, n - pos))
			return false
		end
		local ttype, tlen = inner(pos, 1):bitfield(0, 4), inner(pos + 1, 1):uint() * 4
		if pos + 4 + tlen > n then
			rt:add_proto_expert_info(E.length, string.format(
				"TLV length %d words points past the report (%d bytes left)", tlen / 4, n - pos - 4))
			return false
		end
		local tt = rt:add(F.r_tlv, inner(pos, 1), ttype)
		tt:add(F.r_tlv_len, inner(pos + 1, 1))
		tt:add(F.r_tlv_template, inner(pos + 2, 2))
		if tlen > 0 then tt:add(F.r_tlv_data, inner(pos + 4, tlen)) end
		if not have and tlv_kinds[ttype] then
			have = true
			local pkt = tlen > 0 and inner(pos + 4, tlen):tvb() or nil
			flag_cut(rt, pkt, tlv_kinds[ttype])
			if pkt then dissect_inner(pkt, pinfo, tree, rt, tlv_kinds[ttype]) end
		end
		pos = pos + 4 + tlen
	end
	return true
end

local function add_flags(t, r, d, q, f, i)
	t:add(F.r_flag_d, r, d == 1)
	t:add(F.r_flag_q, r, q == 1)
	t:add(F.r_flag_f, r, f == 1)
	if i ~= nil then t:add(F.r_flag_i, r, i == 1) end
end

local function need(tvb, t, off, n, what)
	if off + n > tvb:len() then
		t:add_proto_expert_info(E.truncated, string.format("%s needs %d bytes at offset %d, the payload has %d",
			what, n, off, tvb:len()))
		return false
	end
	return true
end

-- TR v2.0 RepMdBits metadata (bit order: 0x4000 .. 0x0080, then 0x0001)
local REPMD = {
	{ 0x4000, 4, dec_ports, "L1 ports" }, { 0x2000, 4, dec_latency, "hop latency" },
	{ 0x1000, 4, dec_queue, "queue" }, { 0x0800, 8, dec_ig_ts, "ingress ts" },
	{ 0x0400, 8, dec_eg_ts, "egress ts" }, { 0x0200, 8, dec_l2_ports, "L2 ports" },
	{ 0x0100, 4, dec_tx_util, "tx util" }, { 0x0080, 4, dec_buffer, "buffer" },
	{ 0x0040, 4, dec_reserved }, { 0x0020, 4, dec_reserved }, { 0x0010, 4, dec_reserved },
	{ 0x0008, 4, dec_reserved }, { 0x0004, 4, dec_reserved }, { 0x0002, 4, dec_reserved },
	{ 0x0001, 4, function(t, r)
		t:add(F.drop_queue_id, r(0, 1)); t:add(F.drop_reason, r(1, 1)); t:add(F.drop_pad, r(2, 2))
	end },
}

local function dissect_tr2(tvb, pinfo, tree, top)
	local total = tvb:len()
	if not need(tvb, top, 0, 8, "Group header") then return end
	local w = tvb(0, 4)
	top:add(F.version, w(0, 1), w(0, 1):bitfield(0, 4))
	top:add(F.format, tvb(0, 0), "tr2.0"):set_generated()
	top:add(F.r_hw_id, w(0, 2), w:bitfield(4, 6))
	top:add(F.r_seq, w, w:bitfield(10, 22))
	add_node(top, F.r_node, tvb(4, 4))
	local node = tvb(4, 4):uint()
	local off, idx = 8, 0
	while off + 4 <= total do
		local h = tvb(off, 4)
		local rep_type, in_type = h(0, 1):bitfield(0, 4), h(0, 1):bitfield(4, 4)
		local rl, ml = h(1, 1):uint(), h(2, 1):uint()
		local rlen = (rl == 0xff) and (total - off - 4) or rl * 4
		local rt = top:add(F.report, tvb(off, math.min(4 + rlen, total - off)), idx)
		rt:add(F.r_rep_type, h(0, 1), rep_type)
		rt:add(F.r_in_type, h(0, 1), in_type)
		local li = rt:add(F.r_rep_len, h(1, 1))
		if rl == 0xff then li:append_text(" (to the end of the payload)") end
		rt:add(F.r_md_len, h(2, 1))
		add_flags(rt, h(3, 1), h(3, 1):bitfield(0, 1), h(3, 1):bitfield(1, 1), h(3, 1):bitfield(2, 1), h(3, 1):bitfield(3, 1))
		if off + 4 + rlen > total then
			li:add_proto_expert_info(E.length, string.format(
				"Report length %d words (%d bytes) points past the payload (%d bytes left)", rl, rlen, total - off - 4))
			return
		end
		local body = off + 4
		local inner_off = body
		if rep_type == 1 then
			if rlen < 8 or ml * 4 + 8 > rlen then
				rt:add_proto_expert_info(E.md_length, string.format(
					"Metadata length %d words does not fit in the report (%d words)", ml, rlen / 4))
				return
			end
			local fx8 = tvb(body, 8)
			local bitsv = fx8(0, 2):uint()
			local bi = rt:add(F.r_rep_md, fx8(0, 2))
			rt:add(F.r_ds_id, fx8(2, 2))
			rt:add(F.r_ds_md_bits, fx8(4, 2))
			rt:add(F.r_ds_md_status, fx8(6, 2))
			local need_md = 0
			for _, e in ipairs(REPMD) do if bit32.band(bitsv, e[1]) ~= 0 then need_md = need_md + e[2] end end
			if need_md > ml * 4 then
				bi:add_proto_expert_info(E.md_length, string.format(
					"RepMdBits 0x%04x need %d bytes, md_length says %d", bitsv, need_md, ml * 4))
				return
			end
			if bit32.band(bitsv, 0x8000) ~= 0 then
				bi:add_proto_expert_info(E.note, "RepMdBits bit 0 (0x8000) is reserved")
			end
			local ht = rt:add(F.r_hop, tvb(body, 8 + ml * 4), node)
			add_node(ht, F.node_id, tvb(4, 4))
			local o = 0
			for _, e in ipairs(REPMD) do
				if bit32.band(bitsv, e[1]) ~= 0 then
					e[3](ht, tvb(body + 8 + o, e[2])); o = o + e[2]
				end
			end
			if ml * 4 > need_md then rt:add(F.r_ds_md, tvb(body + 8 + need_md, ml * 4 - need_md)) end
			inner_off = body + 8 + ml * 4
		else
			inner_off = body + ml * 4
			if inner_off > off + 4 + rlen then
				rt:add_proto_expert_info(E.md_length, "Metadata length does not fit in the report")
				return
			end
		end
		local inner_len = off + 4 + rlen - inner_off
		local inner = tvb(inner_off, inner_len)
		rt:add(F.r_inner, inner)
		if (rep_type == 1 or rep_type == 0) and in_type == 1 then
			if not dissect_tlvs(inner, pinfo, tree, rt) then return end
		elseif rep_type == 1 or rep_type == 0 then
			local kind = ({ [3] = "eth", [4] = "ipv4", [5] = "ipv6" })[in_type]
			if kind then flag_cut(rt, inner_len > 0 and inner:tvb() or nil, kind) end
			if inner_len > 0 then dissect_inner(inner:tvb(), pinfo, tree, rt, kind) end
		end
		off = off + 4 + rlen
		idx = idx + 1
		if rl == 0xff then break end
	end
	if off < total then
		top:add(F.r_pad, tvb(off, total - off)):append_text(" (less than a report header)")
	end
	pinfo.cols.info:set(string.format("TR v2.0 node %d seq %d, %d report%s", node, w:bitfield(10, 22), idx,
		idx == 1 and "" or "s"))
end

local TR1MD = {
	{ 0x20, 4, dec_ports }, { 0x10, 4, dec_latency }, { 0x08, 4, dec_queue }, { 0x04, 4, dec_eg_ts },
	{ 0x02, 4, function(t, r)
		t:add(F.drop_queue_id, r(0, 1)); t:add(F.drop_reason, r(1, 1)); t:add(F.drop_pad, r(2, 2))
	end },
	{ 0x01, 4, dec_tx_util },
}

local function dissect_tr1(tvb, pinfo, tree, top)
	local total = tvb:len()
	if not need(tvb, top, 0, 16, "Report header") then return end
	local w = tvb(0, 4)
	top:add(F.version, w(0, 1), w(0, 1):bitfield(0, 4))
	top:add(F.format, tvb(0, 0), "tr1.0"):set_generated()
	local len = w(0, 1):bitfield(4, 4)
	local li = top:add(F.r_length, w(0, 1), len)
	local nproto = w:bitfield(8, 3)
	top:add(F.r_nproto, w(1, 1), nproto):append_text(" (" .. (tr1_nproto_vals[nproto] or "unknown") .. ")")
	local mdbits = w:bitfield(11, 6)
	top:add(F.r_rep_md, w(1, 2), mdbits)
	add_flags(top, w(2, 2), w:bitfield(23, 1), w:bitfield(24, 1), w:bitfield(25, 1), nil)
	top:add(F.r_hw_id, w(3, 1), w:bitfield(26, 6))
	add_node(top, F.r_node, tvb(4, 4))
	top:add(F.r_seq, tvb(8, 4))
	local node = tvb(4, 4):uint()
	local need_md = 0
	for _, e in ipairs(TR1MD) do if bit32.band(mdbits, e[1]) ~= 0 then need_md = need_md + 4 end end
	if len * 4 < 16 then
		li:add_proto_expert_info(E.length, string.format("Length %d words is below the 16-byte fixed header", len))
		return
	end
	if len * 4 > total then
		li:add_proto_expert_info(E.length, string.format("Length %d words points past the payload (%d bytes)", len, total))
		return
	end
	if 16 + need_md > len * 4 then
		li:add_proto_expert_info(E.md_length, string.format(
			"RepMdBits 0x%02x need %d bytes of metadata, length leaves %d", mdbits, need_md, len * 4 - 16))
		return
	end
	local ht = top:add(F.r_hop, tvb(4, len * 4 - 4), node)
	add_node(ht, F.node_id, tvb(4, 4))
	local igr = tvb(12, 4)
	ht:add(F.ingress_ts, igr)
	local o, egr = 16, nil
	for _, e in ipairs(TR1MD) do
		if bit32.band(mdbits, e[1]) ~= 0 then
			e[3](ht, tvb(o, 4))
			if e[1] == 0x04 then egr = tvb(o, 4) end
			o = o + 4
		end
	end
	if egr and bit32.band(mdbits, 0x10) == 0 then
		ht:add(F.hop_latency, egr, (egr:uint() - igr:uint()) % 4294967296):set_generated()
	end
	local kind = ({ [0] = "eth", [1] = "ipv4", [2] = "ipv6" })[nproto]
	if len * 4 < total then
		local inner = tvb(len * 4)
		top:add(F.r_inner, inner)
		flag_cut(top, inner:tvb(), kind)
		dissect_inner(inner:tvb(), pinfo, tree, top, kind)
	elseif kind then
		flag_cut(top, nil, kind)
	end
	pinfo.cols.info:set(string.format("TR v1.0 switch %d seq %d", node, tvb(8, 4):uint()))
end

local function dissect_tr05(tvb, pinfo, tree, top)
	local total = tvb:len()
	if not need(tvb, top, 0, 12, "Fixed header") then return end
	local w = tvb(0, 4)
	top:add(F.version, w(0, 1), w(0, 1):bitfield(0, 4))
	top:add(F.format, tvb(0, 0), "tr0.5"):set_generated()
	local nproto = w(0, 1):bitfield(4, 4)
	top:add(F.r_nproto, w(0, 1), nproto):append_text(" (" .. (tr05_nproto_vals[nproto] or "unknown") .. ")")
	add_flags(top, w(1, 1), w:bitfield(8, 1), w:bitfield(9, 1), w:bitfield(10, 1), nil)
	top:add(F.r_hw_id, w(3, 1), w:bitfield(26, 6))
	top:add(F.r_seq, tvb(4, 4))
	local igr = tvb(8, 4)
	top:add(F.r_ts, igr)
	local off = 12
	local node
	if nproto == 2 then
		if not need(tvb, top, 12, 16, "Switch-local report header") then return end
		local l = tvb(12, 16)
		node = l(0, 4):uint()
		add_node(top, F.r_node, l(0, 4))
		local ht = top:add(F.r_hop, l, node)
		add_node(ht, F.node_id, l(0, 4))
		dec_ports(ht, l(4, 4))
		dec_queue(ht, l(8, 4))
		ht:add(F.ingress_ts, igr)
		ht:add(F.egress_ts, l(12, 4))
		ht:add(F.hop_latency, l(12, 4), (l(12, 4):uint() - igr:uint()) % 4294967296):set_generated()
		off = 28
	elseif nproto == 1 then
		if not need(tvb, top, 12, 12, "Drop report header") then return end
		local l = tvb(12, 12)
		node = l(0, 4):uint()
		add_node(top, F.r_node, l(0, 4))
		local ht = top:add(F.r_hop, l, node)
		add_node(ht, F.node_id, l(0, 4))
		dec_ports(ht, l(4, 4))
		ht:add(F.drop_queue_id, l(8, 1))
		ht:add(F.drop_reason, l(9, 1))
		ht:add(F.drop_pad, l(10, 2))
		ht:add(F.ingress_ts, igr)
		off = 24
	elseif nproto ~= 0 then
		top:add_proto_expert_info(E.version, string.format("Unknown TR v0.5 next protocol %d", nproto))
		return
	end
	if off < total then
		local inner = tvb(off)
		top:add(F.r_inner, inner)
		flag_cut(top, inner:tvb(), "eth")
		dissect_inner(inner:tvb(), pinfo, tree, top, "eth")
	else
		flag_cut(top, nil, "eth")
	end
	pinfo.cols.info:set(string.format("TR v0.5 %s switch %s seq %d", nproto == 1 and "drop" or "local",
		node and tostring(node) or "-", tvb(4, 4):uint()))
end

E.internal = ProtoExpert.new("hopwatch.expert.internal", "Dissector error (please report it with the capture)",
	expert.group.MALFORMED, expert.severity.ERROR)

local function dissect_report(tvb, pinfo, tree, top)
	local ver = tvb(0, 1):bitfield(0, 4)
	if ver == 2 then
		dissect_tr2(tvb, pinfo, tree, top)
	elseif ver == 1 then
		dissect_tr1(tvb, pinfo, tree, top)
	elseif ver == 0 then
		dissect_tr05(tvb, pinfo, tree, top)
	else
		top:add(F.version, tvb(0, 1), ver):add_proto_expert_info(E.version,
			string.format("Telemetry report version %d is not 0 (v0.5), 1 (v1.0) or 2 (v2.0)", ver))
		pinfo.cols.info:set(string.format("Telemetry report, unknown version %d", ver))
	end
end

-- Every read is range-checked above; this only turns a remaining mistake into expert info
-- instead of a Lua error.
function hw.dissector(tvb, pinfo, tree)
	if tvb:len() < 1 then return 0 end
	pinfo.cols.protocol:set("INT-TR")
	local top = tree:add(hw, tvb())
	local ok, err = pcall(dissect_report, tvb, pinfo, tree, top)
	if not ok then top:add_proto_expert_info(E.internal, "Dissector error: " .. tostring(err)) end
	pinfo.cols.protocol:set("INT-TR")
	return tvb:len()
end

----------------------------------------------------------------------------------------------------
-- Registration
----------------------------------------------------------------------------------------------------
hw.experts = { E.version, E.length, E.md_length, E.truncated, E.note, E.inner, E.internal }
intp.experts = { E.i_version, E.i_shim_length, E.i_bitmap, E.i_hops, E.i_truncated, E.i_note, E.i_internal }

local registered_ports = nil
local function register()
	if registered_ports then udp_port_table:remove(registered_ports, hw) end
	registered_ports = hw.prefs.ports
	udp_port_table:add(registered_ports, hw)
end
hw.prefs_changed = register
register()
ip_proto_table:add(17, int_udp)
ip_proto_table:add(6, int_tcp)
gpe_table:add(0x82, gpe_82)
gpe_table:add(0x08, gpe_08)
gpe_table:add(0x05, gpe_05)
udp_port_table:add(6081, int_geneve)
