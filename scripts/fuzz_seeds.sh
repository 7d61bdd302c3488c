#!/usr/bin/env bash
# Writes the fuzz targets' seed corpora (tests/fuzz/corpus/<target>/) from
# small graphs built with the CLI: edge lists in every input format, the
# manifests of a directed weighted and an undirected graph, and their chunks
# (header + payload, the layout fuzz_chunk.cc reads). Needs a built
# build/shardgraph and python3 (standard library only).
#   scripts/fuzz_seeds.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sg=${1:-$root/build}/shardgraph
corpus=$root/tests/fuzz/corpus
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
rm -rf "$corpus"; mkdir -p "$corpus"/{varint,chunk,manifest,edge_reader,bvgraph,delta_run}
# Edge lists: the first byte picks the format (0 snap, 1 mtx, 2 bin32, 3 bin64; +4 weighted).
printf '\x00# Nodes: 6\n0 1\n1 2\n2 0\n3 4\n5 5\n0 1\n' > "$corpus/edge_reader/snap"
printf '\x04# weighted\n0,1,2.5\n1\t2\t3\n2 0 -1\n' > "$corpus/edge_reader/snap-weighted"
printf '\x01%%%%MatrixMarket matrix coordinate pattern general\n%% c\n4 4 3\n1 2\n2 3\n4 1\n' > "$corpus/edge_reader/mtx"
printf '\x05%%%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 0.5\n3 2 1e3\n' > "$corpus/edge_reader/mtx-symmetric"
python3 - "$corpus/edge_reader" <<'PY'
import struct, sys
d = sys.argv[1]
open(d + "/bin32", "wb").write(b"\x02" + struct.pack("<8I", 0, 1, 1, 2, 2, 3, 3, 0))
open(d + "/bin32-weighted", "wb").write(b"\x06" + struct.pack("<IIfIIf", 0, 1, 1.5, 1, 2, 2.0))
open(d + "/bin64", "wb").write(b"\x03" + struct.pack("<4Q", 5, 7, 7, 9))
PY
# Varints: small, multi-byte, maximal, and malformed ones.
printf '\x00\x7f\x80\x01\xff\xff\xff\xff\x0f' > "$corpus/varint/mixed"
printf '\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01' > "$corpus/varint/max64"
printf '\x80\x00\x80' > "$corpus/varint/bad"
# Delta runs: [|V| uint32, flags (bit 0 weighted)] + a run built as
# shards/format/delta_run.h lays it out, checksums left 0 (fuzz_delta_run.cc
# sets them): random sorted adds and removals in blocks of a few records.
python3 - "$corpus/delta_run" <<'PY'
import random, struct, sys
def varint(v):
    out = bytearray()
    while v >= 0x80: out.append(v & 0x7f | 0x80); v >>= 7
    out.append(v); return bytes(out)
def run(arcs, weighted, per_block):
    body, index = bytearray(), bytearray()
    for b in range(0, len(arcs), per_block):
        block = arcs[b:b + per_block]; weights, recs = bytearray(), bytearray()
        last_key, last_nbr = 0, 0
        for i, (k, n, removed, w) in enumerate(block):
            base = last_nbr if i > 0 and k == last_key else 0
            recs += varint(k - (last_key if i > 0 else 0)) + varint((n - base) << 1 | removed)
            if weighted and not removed: weights += struct.pack("<f", w)
            last_key, last_nbr = k, n
        payload = bytes(weights + recs); adds = sum(1 for a in block if not a[2])
        index += struct.pack("<IIIIQIIQ", block[0][0], block[-1][0], len(block), adds, len(body), len(payload), 0, 0)
        body += payload
    footer = struct.pack("<QQQQ", len(body), len(index) // 40, 0, 0x316e757274646773)
    return bytes(body + index + footer)
random.seed(11)
for name, vertices, weighted, count, per_block in (("small", 20, 0, 12, 4), ("weighted", 300, 1, 200, 16), ("one", 1, 0, 1, 1)):
    arcs = sorted({(random.randrange(vertices), random.randrange(vertices), random.randrange(2), random.randrange(8) / 2)
                   for _ in range(count)}, key=lambda a: (a[0], a[1], -a[2]))
    open(sys.argv[1] + "/" + name, "wb").write(struct.pack("<IB", vertices, weighted) + run(arcs, weighted, per_block))
PY
# Graphs: manifests and chunks.
awk 'BEGIN { srand(7); print "# Nodes: 300"; for (i = 0; i < 2000; i++) printf "%d %d %d\n", int(rand() * 300), int(rand() * 300), 1 + int(rand() * 9) }' > "$tmp/w.txt"
awk 'BEGIN { srand(9); for (i = 0; i < 1500; i++) printf "%d %d\n", int(rand() * 500), int(rand() * 500); print "0 0" }' > "$tmp/u.txt"
"$sg" ingest "$tmp/w.txt" -o "$tmp/w" --chunk-bytes 512 --order none >/dev/null
"$sg" ingest "$tmp/u.txt" -o "$tmp/u" --chunk-bytes 512 --undirected >/dev/null
cp "$tmp/w/manifest.json" "$corpus/manifest/directed-weighted.json"
cp "$tmp/u/manifest.json" "$corpus/manifest/undirected.json"
python3 - "$tmp" "$corpus/chunk" <<'PY'
import json, struct, sys, os
tmp, out = sys.argv[1], sys.argv[2]
for name in ("w", "u"):
    g = os.path.join(tmp, name)
    m = json.load(open(os.path.join(g, "manifest.json")))
    n = m["num_vertices"]; weighted = 1 if m.get("weighted") else 0
    for space in m["spaces"]:
        index = open(os.path.join(g, space["index_file"]), "rb").read()
        data = open(os.path.join(g, space["device_files"][0]), "rb").read()
        for c in range(0, len(index) // 32, 7):  # every 7th chunk
            first, count, offset, size, edges, _ = struct.unpack_from("<IIQIIQ", index, c * 32)
            flags = weighted | (2 if m["format_version"] == 1 else 0)  # bit 1: codec 1
            header = struct.pack("<IIII", first, count, edges, n) + bytes([flags])
            open(os.path.join(out, "%s-%s-%d" % (name, space["name"], c)), "wb").write(header + data[offset:offset + size])
PY
# BVGraph: a small graph encoded the way WebGraph does (references to the
# previous list with copy blocks, intervals, zeta_3 residuals), as
# [nodes - 1, flags, offsets bytes] + offsets + graph (see fuzz_bvgraph.cc).
python3 - "$corpus/bvgraph" <<'PY'
import random, sys
class Bits:
    def __init__(self): self.b = []
    def unary(self, x): self.b += [0] * x + [1]
    def fixed(self, x, n): self.b += [(x >> (n - 1 - i)) & 1 for i in range(n)]
    def gamma(self, x):
        msb = (x + 1).bit_length() - 1
        self.unary(msb); self.fixed(x + 1, msb)
    def zeta(self, x, k=3):
        xb = x + 1; h = (xb.bit_length() - 1) // k; left = 1 << (h * k); s = (h + 1) * k
        self.unary(h)
        if xb - left < left: self.fixed(xb - left, s - 1)
        else: self.fixed(xb, s)
    def bytes(self):
        bits = self.b + [0] * (-len(self.b) % 8)
        return bytes(int("".join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8))
def nat(v): return 2 * v if v >= 0 else -2 * v - 1
def encode(lists):
    g, offsets, last = Bits(), Bits(), 0
    for x, s in enumerate(lists):
        offsets.gamma(len(g.b) - last); last = len(g.b)
        g.gamma(len(s))
        if not s: continue
        ref = 1 if x > 0 and lists[x - 1] else 0
        g.unary(ref)
        copied = []
        if ref:
            r = lists[x - 1]; runs, state, n = [], True, 0
            for v in r:
                if (v in s) == state: n += 1
                else: runs.append(n); state = not state; n = 1
            runs.append(n); explicit = runs[:-1]
            g.gamma(len(explicit))
            for i, n in enumerate(explicit): g.gamma(n if i == 0 else n - 1)
            copied = [v for v in r if v in s]
        extra = sorted(set(s) - set(copied))
        spans, i = [], 0
        while i < len(extra):
            j = i
            while j + 1 < len(extra) and extra[j + 1] == extra[j] + 1: j += 1
            if j - i + 1 >= 4: spans.append((extra[i], j - i + 1))
            i = j + 1
        g.gamma(len(spans)); prev = None
        for left, n in spans:
            g.gamma(nat(left - x) if prev is None else left - prev - 1); g.gamma(n - 4); prev = left + n
        inside = {left + d for left, n in spans for d in range(n)}
        prev = None
        for v in [v for v in extra if v not in inside]:
            g.zeta(nat(v - x) if prev is None else v - prev - 1); prev = v
    return g.bytes(), offsets.bytes()
rnd = random.Random(7)
for name, nodes in (("small", 20), ("mixed", 90)):
    lists, base = [], []
    for x in range(nodes):
        base = sorted(set([v for v in base if rnd.random() < 0.8] + rnd.sample(range(nodes), rnd.randint(0, 4))))
        if x % 9 == 0: start = rnd.randrange(nodes - 6); base = sorted(set(base) | set(range(start, start + 6)))
        lists.append(base if x % 5 else [])
    graph, offsets = encode(lists)
    assert len(offsets) < 256
    open(sys.argv[1] + "/" + name, "wb").write(bytes([nodes - 1, 0x48, len(offsets)]) + offsets + graph)
PY
echo "seeds: $(find "$corpus" -type f | wc -l) files in $corpus"
