"""Extract vProfile frames from a serial log and rebuild dumps.

A log may interleave dump lines with hypervisor log lines and guest console
output, may hold several dumps (several VMs, several boots) and may be
damaged. Every problem found is reported as a Problem; a dump is `complete`
only when BEGIN..END arrived whole and END's counts and chained CRC agree.
"""
import binascii
import re
import struct
import zlib
from dataclasses import dataclass, field

from . import fmt

LINE_RE = re.compile(r"@VP1 (\d{1,10}) ([0-9a-fA-F]{8}) ([A-Za-z0-9+/]+={0,2})(?=\s|$)")


@dataclass
class Problem:
    line: int          # 1-based line number in the input (0: whole dump)
    dump: object       # dump id or None
    what: str

    def __str__(self):
        where = f"line {self.line}" if self.line else "dump"
        d = f" dump {self.dump}" if self.dump is not None else ""
        return f"{where}{d}: {self.what}"


@dataclass
class Vcpu:
    vcpu: int
    state: int = fmt.OFFLINE
    spinning: int = 0
    last_pcpu: int = 0
    state_ns: list = field(default_factory=lambda: [0, 0, 0, 0])
    spin_ns: int = 0
    spin_begins: list = field(default_factory=lambda: [0, 0, 0])
    anomalies: int = 0
    exits_other: int = 0
    events: dict = field(default_factory=dict)
    exits: dict = field(default_factory=dict)
    pmu_present: int = 0
    pmu_samples: int = 0
    pmu: list = field(default_factory=lambda: [0] * len(fmt.PMU_COUNTERS))

    def pmu_value(self, name):
        """Counter value, or None when absent (never a fake zero)."""
        i = fmt.PMU_COUNTERS.index(name)
        return self.pmu[i] if self.pmu_present & (1 << i) else None


@dataclass
class Pcpu:
    pcpu: int
    cap: int = 0
    recorded: int = 0
    lost: int = 0
    idle_ns: int = 0
    used: int = 0


@dataclass
class Dump:
    dump_id: int
    first_line: int
    vm: int = 0
    nvcpus: int = 0
    npcpus: int = 0
    reason: int = 0
    active: bool = False
    exit_trace: bool = False
    t0: int = 0
    t1: int = 0
    ded_ns: int = 0
    frozen_ns: int = 0
    nevents: int = len(fmt.EVENTS)
    vcpus: dict = field(default_factory=dict)
    pcpus: dict = field(default_factory=dict)
    records: list = field(default_factory=list)
    frames: dict = field(default_factory=dict)   # seq -> raw frame bytes
    complete: bool = False
    end: tuple = None
    end_seq: int = None

    @property
    def window_ns(self):
        return self.t1 - self.t0

    @property
    def lost(self):
        return sum(p.lost for p in self.pcpus.values())

    def vcpu(self, i):
        return self.vcpus.setdefault(i, Vcpu(i))


def _u(fmt_, buf, off):
    return struct.unpack_from(fmt_, buf, off)


def _begin(d, p):
    (d.vm, d.nvcpus, d.npcpus, d.reason, flags, d.t0, d.t1, d.ded_ns, d.frozen_ns,
     rec_size, nev, nexit, npmu, nstates) = _u("<HHHBBqqQQIHHHH", p, 0)
    d.active, d.exit_trace = bool(flags & 1), bool(flags & 2)
    # Events may be appended by newer hypervisors: decoded by count, unknown
    # ones named EVENT_<n>. The other sizes change the layout itself.
    d.nevents = nev
    if rec_size != fmt.REC_SIZE or npmu != len(fmt.PMU_COUNTERS) or nstates != len(fmt.STATES):
        raise ValueError(f"layout mismatch: rec {rec_size} events {nev} pmu {npmu} states {nstates}")


def _vcpu(d, p):
    vm, i, state, spinning, last = _u("<HHBBH", p, 0)
    v = d.vcpu(i)
    v.state, v.spinning, v.last_pcpu = state, spinning, last
    vals = _u("<" + "Q" * (4 + 1 + 3 + 2 + d.nevents), p, 8)
    v.state_ns = list(vals[0:4])
    v.spin_ns = vals[4]
    v.spin_begins = list(vals[5:8])
    v.anomalies, v.exits_other = vals[8], vals[9]
    v.events = {fmt.event_name(k): n for k, n in enumerate(vals[10:]) if k}


def _pmu(d, p):
    vm, i, present, samples, _ = _u("<HHIII", p, 0)
    v = d.vcpu(i)
    v.pmu_present, v.pmu_samples = present, samples
    v.pmu = list(_u("<" + "Q" * len(fmt.PMU_COUNTERS), p, 16))


def _exits(d, p):
    vm, i, n, _ = _u("<HHHH", p, 0)
    v = d.vcpu(i)
    for k in range(n):
        reason, count = _u("<HQ", p, 8 + 10 * k)
        v.exits[reason] = count


def _pcpu(d, p):
    i, _, cap, recorded, lost, idle, used = _u("<HHIQQQI", p, 0)
    d.pcpus[i] = Pcpu(i, cap, recorded, lost, idle, used)


def _recs(d, p):
    pcpu, n, _ = _u("<HHI", p, 0)
    for k in range(n):
        d.records.append(_u(fmt.REC_FMT, p, 8 + fmt.REC_SIZE * k))


def _end(d, p):
    d.end = _u("<IIQI", p, 0)


DECODERS = {fmt.BEGIN: _begin, fmt.VCPU: _vcpu, fmt.PMU: _pmu, fmt.EXITS: _exits,
            fmt.PCPU: _pcpu, fmt.RECS: _recs, fmt.END: _end}


def parse_line(text):
    """Return (seq, frame bytes) or raise ValueError saying what is wrong."""
    m = LINE_RE.search(text)
    if not m:
        raise ValueError("malformed @VP1 line")
    seq, crc = int(m[1]), int(m[2], 16)
    try:
        raw = binascii.a2b_base64(m[3].encode(), strict_mode=True)
    except (binascii.Error, ValueError) as e:
        raise ValueError(f"bad base64 ({e})") from None
    if zlib.crc32(raw) != crc:
        raise ValueError(f"CRC mismatch (line says {crc:08x}, data has {zlib.crc32(raw):08x})")
    if len(raw) < fmt.HDR_SIZE:
        raise ValueError("frame shorter than its header")
    ftype, ver, dump, hseq = struct.unpack_from("<BBHI", raw, 0)
    if ver != fmt.VERSION:
        raise ValueError(f"unsupported frame version {ver}")
    if hseq != seq:
        raise ValueError(f"sequence {seq} on the line but {hseq} in the frame")
    if ftype not in DECODERS:
        raise ValueError(f"unknown frame type {ftype}")
    return seq, raw


class Extractor:
    """Feed lines; collect dumps and problems."""

    def __init__(self):
        self.dumps = []
        self.problems = []
        self.open = {}          # dump id -> Dump being received
        self.frame_lines = 0

    def problem(self, line, dump, what):
        self.problems.append(Problem(line, dump, what))

    def feed(self, lineno, text):
        if fmt.MARKER not in text:
            return
        self.frame_lines += 1
        try:
            seq, raw = parse_line(text)
        except ValueError as e:
            self.problem(lineno, None, str(e))
            return
        self._frame(lineno, seq, raw)

    def _frame(self, lineno, seq, raw):
        ftype, _, dump_id, _ = struct.unpack_from("<BBHI", raw, 0)
        if ftype == fmt.BEGIN:
            if dump_id in self.open:
                self._close(self.open.pop(dump_id), "a new BEGIN with the same id arrived")
            self.open[dump_id] = Dump(dump_id, lineno)
            if seq != 0:
                self.problem(lineno, dump_id, f"BEGIN frame has sequence {seq}, not 0")
        d = self.open.get(dump_id)
        if d is None:
            self.problem(lineno, dump_id, f"{fmt.FRAME_TYPES[ftype]} frame without BEGIN")
            return
        if seq in d.frames:
            if d.frames[seq] != raw:
                self.problem(lineno, dump_id, f"two different frames with sequence {seq}")
            return
        d.frames[seq] = raw
        if ftype == fmt.END:
            d.end_seq = seq
            self._close(self.open.pop(dump_id), None)

    def _close(self, d, why):
        self.dumps.append(d)
        if why:
            self.problem(d.first_line, d.dump_id, f"incomplete: {why}")
            self._decode(d)
            return
        self._verify(d)

    def _verify(self, d):
        try:
            nframes, nrecs, _, crc_all = struct.unpack_from("<IIQI", d.frames[d.end_seq], fmt.HDR_SIZE)
        except struct.error:
            self.problem(d.first_line, d.dump_id, "END frame too short: counts unknown")
            self._decode(d)
            return
        have = sum(1 for s in d.frames if s < nframes)
        missing = nframes - have
        if missing:
            first = []
            for s in range(nframes):       # bounded: stops after 8 gaps
                if s not in d.frames:
                    first.append(str(s))
                    if len(first) == 8:
                        break
            shown = ", ".join(first) + (" ..." if missing > len(first) else "")
            self.problem(d.first_line, d.dump_id, f"{missing} of {nframes} frames missing: seq {shown}")
        crc = 0
        if not missing:
            for s in range(nframes):
                crc = zlib.crc32(d.frames[s], crc)
            if crc != crc_all:
                self.problem(d.first_line, d.dump_id, "END checksum over all frames does not match")
        extra = len(d.frames) - have - 1
        if extra > 0:
            self.problem(d.first_line, d.dump_id, f"{extra} frames beyond the count END gives")
        self._decode(d)
        if not missing and len(d.records) != nrecs:
            self.problem(d.first_line, d.dump_id, f"END says {nrecs} records, got {len(d.records)}")
        d.complete = not missing and extra <= 0 and crc == crc_all and len(d.records) == nrecs

    def _decode(self, d):
        for s in sorted(d.frames):
            raw = d.frames[s]
            if s == d.end_seq and raw[0] != fmt.END:
                continue
            try:
                DECODERS[raw[0]](d, raw[fmt.HDR_SIZE:])
            except (struct.error, ValueError, IndexError) as e:
                self.problem(d.first_line, d.dump_id, f"frame {s} ({fmt.FRAME_TYPES[raw[0]]}) undecodable: {e}")
        d.records = order_records(d.records)

    def finish(self):
        for d in list(self.open.values()):
            self._close(d, "no END frame (log truncated?)")
        self.open.clear()
        if self.frame_lines == 0:
            self.problem(0, None, "no @VP1 frames found")
        return self.dumps, self.problems


def order_records(recs):
    """Merge the per-pCPU rings by time. Records carry no global sequence, so
    at one timestamp a vCPU's records from two pCPUs (descheduled on one,
    picked up by another in the same ns: exact in the simulator, possible with
    a coarse clock) are put in causal order: the pCPU whose records for that
    vCPU include its RUNNING state goes last. Rings keep their own order."""
    arrive = {(r[0], r[2], r[3], r[6]) for r in recs
              if r[4] == fmt.REC_STATE and r[5] == fmt.RUNNING and r[2] != fmt.VM_NONE}
    return sorted(recs, key=lambda r: (r[0], (r[0], r[2], r[3], r[6]) in arrive))


def extract(lines):
    """lines: iterable of text lines. Returns (dumps, problems)."""
    ex = Extractor()
    for n, text in enumerate(lines, 1):
        ex.feed(n, text)
    return ex.finish()


def extract_file(path):
    with open(path, "r", encoding="utf-8", errors="replace") as f:
        return extract(f)
