/**
 * Python side of the sandbox, defined once in the memory snapshot every interpreter is restored from.
 *
 * Two entry points, for two kinds of process that never meet:
 * - `_sf_answer(job_json, ctl, cap)` in an answer process: loads the model's program, calls it on each input and
 *   streams each output back as a plain tagged value (`_sf_tag`, see values.ts) — or, where the expected output is
 *   huge, as a digest of its canonical form (`_sf_digest`). It never sees an expected output, and it compares
 *   nothing: the host does. Everything here runs beside the answer and may be tampered with by it; that can only
 *   change what the answer claims about itself, which the host checks.
 * - `_sf_expected(job_json, ctl)` in a reference process: runs the task's trusted canonical solution (and its
 *   reference function) on each input and streams the expected outputs, the canonical time and the input's repr.
 *
 * `ctl` is a JS object: arm(ms), disarm(), expired(), raw_exceeded(), send(line).
 */
export const HARNESS_PY = String.raw`
import sys, os, io, json, time, copy, math, re, posix, base64, hashlib, itertools, reprlib, random, collections, operator, pickle

sys.set_int_max_str_digits(0)

def _no_system(*args, **kwargs):
    raise OSError("os.system is disabled in the sandbox")
os.system = _no_system
posix.system = _no_system

class _SfOutputLimit(Exception):
    pass

class _SfTooBig(Exception):
    pass

class _SfBoundedOut(io.TextIOBase):
    """Replaces sys.stdout/sys.stderr: output is counted and dropped (EvalPlus swallows it too)."""
    def __init__(self, cap):
        self.count = 0
        self.cap = cap
        self.exceeded = False
    def writable(self):
        return True
    def write(self, s):
        n = len(s)
        self.count += n
        if self.count > self.cap:
            self.exceeded = True
            raise _SfOutputLimit("output limit exceeded")
        return n
    def flush(self):
        pass

def _sf_err(e):
    try:
        s = "%s: %s" % (type(e).__name__, e)
    except BaseException:
        s = type(e).__name__
    return s if len(s) <= 300 else s[:299] + "\u2026"

def _sf_short(value, limit=300):
    try:
        s = _sf_repr.repr(value)
    except BaseException as e:
        s = "<unrepresentable %s: %s>" % (type(value).__name__, type(e).__name__)
    return s if len(s) <= limit else s[: limit - 1] + "\u2026"

_sf_repr = reprlib.Repr()
_sf_repr.maxlevel = 8
_sf_repr.maxlist = _sf_repr.maxtuple = _sf_repr.maxset = _sf_repr.maxfrozenset = _sf_repr.maxdict = 60
_sf_repr.maxstring = _sf_repr.maxother = 300
_sf_repr.maxlong = 300

# Ints past this many bits are written in hex: str(int) is quadratic in CPython before 3.12 (HumanEval/83's outputs took
# minutes natively), hex(int) is linear. The form depends on the value alone, so equal ints have equal texts (values.ts).
_SF_HEX_BITS = 100000

def _sf_int_text(v):
    return hex(v) if v.bit_length() > _SF_HEX_BITS else str(v)

def _sf_repr_int(x, level):
    if x.bit_length() > _SF_HEX_BITS:
        h = hex(x)
        return h[:40] + "\u2026 (%d bits)" % x.bit_length()
    return reprlib.Repr.repr_int(_sf_repr, x, level)

_sf_repr.repr_int = _sf_repr_int

_SF_DICTS = {collections.Counter: "Counter", collections.OrderedDict: "OrderedDict", collections.defaultdict: "defaultdict"}

def _sf_tag(v, depth=0):
    """A plain, type-tagged JSON-able value (values.ts). Exact types only: anything else is opaque."""
    if depth > 900:
        raise _SfTooBig("the output nests deeper than 900 levels")
    t = type(v)
    if v is None or t is bool or t is str:
        return v
    if t is int:
        return v if -9007199254740992 <= v <= 9007199254740992 else {"i": _sf_int_text(v)}
    if t is float:
        return {"f": repr(v)}
    if t is list:
        return [_sf_tag(x, depth + 1) for x in v]
    if t is tuple:
        return {"t": [_sf_tag(x, depth + 1) for x in v]}
    if t is dict or t in _SF_DICTS:
        r = {"d": [[_sf_tag(k, depth + 1), _sf_tag(x, depth + 1)] for k, x in dict.items(v)]}
        if t is not dict:
            r["k"] = _SF_DICTS[t]
        return r
    if t is set:
        return {"s": [_sf_tag(x, depth + 1) for x in v]}
    if t is frozenset:
        return {"z": [_sf_tag(x, depth + 1) for x in v]}
    if t is complex:
        return {"c": [repr(v.real), repr(v.imag)]}
    if t is bytes:
        return {"b": base64.b64encode(v).decode("ascii")}
    if t is bytearray:
        return {"b": base64.b64encode(bytes(v)).decode("ascii"), "k": "bytearray"}
    name = getattr(t, "__qualname__", None)
    mod = getattr(t, "__module__", None)
    name = name if type(name) is str else "object"
    if type(mod) is str and mod not in ("builtins", "__main__"):
        name = mod + "." + name
    return {"o": name[:200]}

def _sf_size_over(v, limit):
    """Whether v's encoding would pass limit bytes, by a bounded walk (a 1 GB list is not encoded to find out)."""
    total = 0
    stack = [v]
    while stack:
        x = stack.pop()
        t = type(x)
        if t is str or t is bytes or t is bytearray:
            total += len(x) + 3
        elif t is int:
            total += x.bit_length() // 3 + 2
        elif t is list or t is tuple or t is set or t is frozenset:
            total += 2 + len(x)
            if total > limit:
                return True
            stack.extend(x)
        elif t is dict or t in _SF_DICTS:
            total += 4 + 4 * len(x)
            if total > limit:
                return True
            stack.extend(dict.keys(x))
            stack.extend(dict.values(x))
        else:
            total += 24
        if total > limit:
            return True
    return False

def _sf_json(v, cap):
    if _sf_size_over(v, cap):
        raise _SfTooBig("the output is larger than %d bytes" % cap)
    text = json.dumps(_sf_tag(v), separators=(",", ":"))
    if len(text) > cap:
        raise _SfTooBig("the output is larger than %d bytes" % cap)
    return text

# Canonical form for digests: C(a) == C(b) exactly when a == b for builtin values (numbers share one space:
# True == 1 == 1.0 == 1+0j; dicts and sets are order-free; set == frozenset; NaN never equal). For str, int and
# tuples of them it is their repr, so long homogeneous lists are written at C speed.
def _sf_canon_num(x):
    t = type(x)
    if t is bool:
        return "1" if x else "0"
    if t is int:
        return _sf_int_text(x)
    if t is float:
        if x != x:
            return "nan#%r" % random.random()
        if x in (math.inf, -math.inf):
            return repr(x)
        if x == int(x):
            return repr(int(x))
        return repr(x)
    if t is complex:
        if x.imag == 0:
            return _sf_canon_num(x.real)
        return "complex(%s, %s)" % (_sf_canon_num(x.real), _sf_canon_num(x.imag))
    return None

def _sf_canon(x, depth=0):
    if depth > 900:
        raise _SfTooBig("the output nests deeper than 900 levels")
    t = type(x)
    if x is None:
        return "None"
    if t is str:
        return repr(x)
    n = _sf_canon_num(x)
    if n is not None:
        return n
    if t is list:
        return "[" + ", ".join(_sf_canon(i, depth + 1) for i in x) + "]"
    if t is tuple:
        return "(" + ", ".join(_sf_canon(i, depth + 1) for i in x) + ("," if len(x) == 1 else "") + ")"
    if t is set or t is frozenset:
        return "set{" + ", ".join(sorted(_sf_canon(i, depth + 1) for i in x)) + "}"
    if t is dict or t in _SF_DICTS:
        return "dict{" + ", ".join(sorted(_sf_canon(k, depth + 1) + ": " + _sf_canon(v, depth + 1) for k, v in dict.items(x))) + "}"
    if t is bytes or t is bytearray:
        return repr(bytes(x))
    return "<%s #%r>" % (getattr(t, "__qualname__", "object"), random.random())

_SF_REPR_TYPES = {str, int, float, bool}
# repr writes a float as its canonical text unless the float is integral (C(1.0) is "1"), infinite or NaN, and in repr's
# text exactly those are written "….0" (fixed notation), with an "e+" exponent (1e16 and up, all integral), or as
# "inf"/"nan". A str that holds such text only sends its chunk down the slow path.
_SF_NOT_CANON_FLOAT = re.compile(r"\.0(?![0-9])|e\+|inf|nan")

class _SfNotExact(Exception):
    pass

class _SfExactPickler(pickle.Pickler):
    def reducer_override(self, obj):
        raise _SfNotExact()

def _sf_pickled(chunk):
    """A chunk of str, or of tuples of str or of floats, as pickle bytes without the memo: the bytes depend on the values
    alone (two equal strs are written alike whether or not they are one object), and pickle writes them at C speed.
    Pickle asks reducer_override about every object but None, bools and exact ints, floats, bytes, str, dicts, sets,
    lists and tuples; here it refuses them all (_SfNotExact), so a str subclass never takes this path."""
    buf = io.BytesIO()
    p = _SfExactPickler(buf, protocol=5)
    p.fast = True
    p.dump(chunk)
    return buf.getvalue()

def _sf_strs_pickled(chunk):
    """b"\0T" + the chunk pickled when it is a chunk of tuples of exact strs, else None. "".join refuses a tuple holding
    anything but strs at C speed (6 ns an item, against 19 for collecting the items' types); _sf_pickled refuses str
    subclasses, which join lets through."""
    try:
        collections.deque(map("".join, chunk), maxlen=0)
        return b"\0T" + _sf_pickled(chunk)
    except (TypeError, _SfNotExact):
        return None

def _sf_complex_real(x):
    return x.real if type(x) is complex and x.imag == 0 else x

def _sf_floats_pickled(chunk, types, nested):
    """b"\0F" + the chunk pickled when its scalars (types: their exact types) are floats that are finite and not integral,
    else None. Such a float equals nothing but itself and complex(itself, 0), so its 8 IEEE bytes are its canonical form
    once a complex with no imaginary part is put as its real part (done here, on a copy), and pickle writes them at C
    speed where repr costs ~300 ns a float (Mbpp/255: 6.3 million floats, 3.2 s → 0.4 s a process). The test reads only the values
    (a finite sum means finite floats), so equal chunks take the same path."""
    if not types <= {float, complex}:
        return None
    if complex in types:
        if nested:
            chunk = type(chunk)(tuple(map(_sf_complex_real, c)) for c in chunk)
        else:
            chunk = type(chunk)(map(_sf_complex_real, chunk))
    scalars = list(itertools.chain.from_iterable(chunk)) if nested else chunk
    if complex in types and any(type(x) is complex for x in scalars):
        return None
    if any(map(float.is_integer, scalars)) or not math.isfinite(sum(scalars)):
        return None
    return b"\0F" + _sf_pickled(chunk)

def _sf_repr_text(chunk, types, items):
    """C(item) of every item of a chunk joined by ", ", written by repr, when repr writes every item canonically (types:
    the exact types of the scalars, items: those scalars); else None."""
    if not types <= _SF_REPR_TYPES or (bool in types and str in types):
        return None
    if int in types and max(i.bit_length() for i in items if type(i) is int) > _SF_HEX_BITS:
        return None
    text = ", ".join(map(repr, chunk))
    if float in types and _SF_NOT_CANON_FLOAT.search(text):
        return None
    if bool in types:
        text = text.replace("True", "1").replace("False", "0")
    return text

def _sf_chunk_text(chunk):
    """C(item) of every item of a chunk, joined by ", ", at C speed where the items' exact types allow it.

    A chunk of str, or of tuples of str, or of floats that are finite and not integral (or tuples of them), is pickled
    (without the memo) after a NUL marker and a letter for the path: NUL never occurs in any other canonical text (repr
    escapes it), and a pickle ends itself, so the digested bytes still say where each chunk ends. Equal values take the
    same path, because only a str equals a str (a subclass is not str here, and its canonical form never equals
    anything) and such a float equals only itself or a complex with no imaginary part (_sf_floats_pickled); a list
    where a tuple is due never takes the tuple path, and pickle writes a list and a tuple apart anyway. Chunks of ints,
    floats, bools and strs, and tuples of them, are their canonical text under repr, where _sf_repr_text finds that it
    is.
    """
    kinds = set(map(type, chunk))
    if kinds == {str}:
        return b"\0S" + _sf_pickled(chunk)
    text = None
    if kinds == {tuple}:
        pickled = _sf_strs_pickled(chunk)
        if pickled is not None:
            return pickled
        inner = set(map(type, itertools.chain.from_iterable(chunk)))
        pickled = _sf_floats_pickled(chunk, inner, True)
        if pickled is not None:
            return pickled
        text = _sf_repr_text(chunk, inner, itertools.chain.from_iterable(chunk))
    else:
        pickled = _sf_floats_pickled(chunk, kinds, False)
        if pickled is not None:
            return pickled
        text = _sf_repr_text(chunk, kinds, chunk)
    return text if text is not None else ", ".join(_sf_canon(i, 1) for i in chunk)

def _sf_digest(v):
    """A 256-bit BLAKE2b of C(v), streamed: a huge list is hashed in chunks, never built as one string (BLAKE2b is
    2.5x faster than sha256 in wasm)."""
    h = hashlib.blake2b(digest_size=32)
    size = [0]
    def put(s):
        b = s if type(s) is bytes else s.encode("utf-8", "surrogatepass")
        size[0] += len(b)
        h.update(b)
    t = type(v)
    if (t is list or t is tuple) and len(v) > 64:
        put("[" if t is list else "(")
        step = 10000
        for start in range(0, len(v), step):
            if start:
                put(", ")
            put(_sf_chunk_text(v[start:start + step]))
        put("]" if t is list else ")")
    else:
        put(_sf_canon(v))
    return h.hexdigest(), size[0]

def _sf_is_floats(x):
    if type(x) is float:
        return True
    if type(x) in (list, tuple) and x:
        return all(type(i) is float for i in x)
    return False

def _sf_inputs(job):
    if job.get("inputsPy") is not None:
        return eval(job["inputsPy"], {"inf": math.inf, "nan": math.nan, "__builtins__": __builtins__})
    return json.loads(job.get("inputsJson") or "[]")

def _sf_deserializer(job):
    src = job.get("deserialize")
    if not src:
        return lambda a: a
    ns = {}
    exec(src, ns)
    return ns["deserialize"]

def _sf_kind(e, out_stream, ctl):
    if isinstance(e, KeyboardInterrupt):
        return "output-limit" if ctl.raw_exceeded() else "timeout"
    if isinstance(e, MemoryError):
        return "memory"
    if isinstance(e, _SfOutputLimit) or out_stream.exceeded or ctl.raw_exceeded():
        return "output-limit"
    return "error"

def _sf_defines(program, name):
    return re.search(r"^\s*(async\s+)?def\s+" + re.escape(name) + r"\s*\(", program, re.M) is not None

# Each input is called through C (operator.call), so that each enters CPython's interpreter loop afresh. A Python
# function calling Python functions stays inside one C call of that loop, and V8 gives a wasm function its optimised
# code only at its next call: called directly, a whole job would run in baseline-compiled code, ~2.5x slower.
_sf_call = operator.call

def _sf_send(ctl, msg):
    ctl.send(json.dumps(msg, separators=(",", ":")))

def _sf_job(job_json):
    """The job as the host sent it: JSON text from the Pyodide worker, already a dict from the native driver."""
    return json.loads(job_json) if type(job_json) is str else job_json

def _sf_answer(job_json, ctl, output_cap):
    job = _sf_job(job_json)
    out_stream = _SfBoundedOut(output_cap)
    sys.stdout = out_stream
    sys.stderr = out_stream
    if job["mode"] == "exec":
        return _sf_exec(job, ctl)
    return _sf_check(job, ctl, out_stream)

def _sf_exec(job, ctl):
    buf = io.StringIO()
    sys.stdout = buf
    sys.stderr = buf
    err = None
    ctl.arm(job["capMs"])
    try:
        exec(compile(job["code"], "<snippet>", "exec"), {"__name__": "__main__"})
    except BaseException as e:
        err = "timeout" if isinstance(e, KeyboardInterrupt) else _sf_err(e)
    ctl.disarm()
    text = buf.getvalue()
    msg = {"type": "exec", "stdout": text[-20000:]}
    if err:
        msg["error"] = err
    _sf_send(ctl, msg)

def _sf_check(job, ctl, out_stream):
    entry = job["entryPoint"]
    g = {"__name__": "__main__"}
    program = job["program"]
    setup = job.get("setup")
    ctl.arm(job["loadCapMs"])
    try:
        if setup and not _sf_defines(program, entry):
            exec(compile(setup + program, "<answer>", "exec"), g)
        else:
            if setup:
                exec(compile(setup, "<prompt>", "exec"), g)
                g.pop(entry, None)
            exec(compile(program, "<answer>", "exec"), g)
        fn = g.get(entry)
        ok = callable(fn)
    except BaseException as e:
        ctl.disarm()
        _sf_send(ctl, {"type": "raise", "kind": _sf_kind(e, out_stream, ctl), "error": "the answer failed to load: " + _sf_err(e)})
        return
    ctl.disarm()
    if not ok:
        _sf_send(ctl, {"type": "raise", "kind": "error", "error": "the answer does not define %s()" % entry})
        return
    _sf_send(ctl, {"type": "loaded"})
    deser = _sf_deserializer(job)
    inputs = _sf_inputs(job)
    limits = job["limitsMs"]
    caps = job["outputCaps"]
    digest = set(job["digest"])
    for i, raw in enumerate(inputs):
        args = deser(copy.deepcopy(raw))
        ctl.arm(limits[i])
        try:
            out = _sf_call(fn, *args)
            if ctl.expired():
                raise KeyboardInterrupt()
        except BaseException as e:
            ctl.disarm()
            kind = _sf_kind(e, out_stream, ctl)
            err = ("timed out after %.1f s" % (limits[i] / 1000.0)) if kind == "timeout" else _sf_err(e)
            _sf_send(ctl, {"type": "raise", "i": i, "kind": kind, "error": err})
            return
        ctl.disarm()
        try:
            if i in digest:
                d, n = _sf_digest(out)
                _sf_send(ctl, {"type": "out", "i": i, "h": d, "n": n})
            else:
                ctl.send('{"type":"out","i":%d,"v":%s}' % (i, _sf_json(out, caps[i])))
        except _SfTooBig as e:
            _sf_send(ctl, {"type": "raise", "i": i, "kind": "error", "error": "the output cannot be compared: " + str(e)})
            return
        except BaseException as e:
            _sf_send(ctl, {"type": "raise", "i": i, "kind": _sf_kind(e, out_stream, ctl), "error": "the output cannot be compared: " + _sf_err(e)})
            return
        out = None
    _sf_send(ctl, {"type": "done", "count": len(inputs)})

def _sf_expected(job_json, ctl):
    job = _sf_job(job_json)
    ctl.arm(job["capMs"])
    g = {"__name__": "__main__"}
    exec(compile(job["program"], "<canonical>", "exec"), g)
    fn = g[job["entryPoint"]]
    ref = None
    if job.get("reference"):
        ns = {}
        exec(job["reference"], ns)
        ref = ns["reference"]
    deser = _sf_deserializer(job)
    inputs = _sf_inputs(job)
    over = job.get("digestOverBytes")
    for i, raw in enumerate(inputs):
        args = deser(copy.deepcopy(raw))
        # The input as it was: shown before the call, which may change its arguments in place.
        shown = _sf_short(args)
        t0 = time.perf_counter()
        out = _sf_call(fn, *args)
        ms = (time.perf_counter() - t0) * 1000.0
        if job["outputNotNone"]:
            out = out is not None
        msg = {"type": "exp", "i": i, "ms": ms, "in": shown}
        t1 = time.perf_counter()
        if over and not _sf_is_floats(out) and _sf_size_over(out, over):
            msg["h"], msg["n"] = _sf_digest(out)
            msg["p"] = _sf_short(out)
        else:
            msg["v"] = _sf_tag(out)
        # What turning this output into data costs here; an answer gets 4x it on top of its limit to do the same.
        msg["sms"] = (time.perf_counter() - t1) * 1000.0
        if ref is not None:
            msg["alt"] = _sf_tag(_sf_call(ref, *deser(copy.deepcopy(raw))))
        if job["wantArgs"]:
            msg["args"] = _sf_tag(list(deser(copy.deepcopy(raw))))
        _sf_send(ctl, msg)
        out = None
    ctl.disarm()
    _sf_send(ctl, {"type": "done", "count": len(inputs)})

import time as _t
def _sf_sleep(seconds, _real=_t.sleep, _mono=_t.monotonic):
    """time.sleep in chunks, so an interrupt (checked between bytecodes: output past the cap) lands while "sleeping"."""
    end = _mono() + seconds
    while True:
        left = end - _mono()
        if left <= 0:
            return
        _real(min(left, 0.02))
_t.sleep = _sf_sleep
del _t
`;

/** Modules imported before the snapshot, so every restored interpreter starts warm. */
export const PRELOAD_PY =
  "import sys, os, io, json, time, pickle, base64, copy, math, re, posix, collections, itertools, functools, heapq, bisect, string, typing, fractions, decimal, statistics, hashlib, reprlib, random";
