import { spawnSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import { SkillFollowingError } from "../errors.js";
import { HARNESS_PY } from "./harness-py.js";
import type { Confinement } from "./isolation.js";
import { PROTOCOL_VERSION } from "./wire.js";

/**
 * The CPython runtime (`sandboxPython: "cpython"`, and what `auto`, the default, picks wherever the probe below passes;
 * Linux with bubblewrap only): each answer runs in a fresh
 * native CPython process instead of a fresh Pyodide one. It exists for paper-scale runs, where Pyodide's per-process
 * start (~0.7 s of CPU) and its wasm32 interpreter (2-9x slower on heavy inputs) dominate the bill.
 *
 * It trades layers for speed, and says so in the run header (`isolation: native-confined`):
 * - gone: "no JavaScript from Python" and Node's permission model. The answer is native code as far as the kernel is
 *   concerned (ctypes reaches every system call the filter below allows);
 * - kept: a fresh process per answer that receives inputs, never expected outputs, with the comparison, the deadlines,
 *   the line cap and the RSS limit on the host; and bubblewrap's namespaces (PID, mount, IPC, UTS, network, user, with
 *   further user namespaces disabled) over a private root where only the system folders and the interpreter are
 *   visible, read-only, with a 16 MB /tmp;
 * - added, by the trusted driver before the job is read: a seccomp filter (no fork, exec, ptrace, sockets, namespaces,
 *   mounts, keyrings, BPF, io_uring or cross-process memory; only threads may be cloned), `no_new_privs`, and hard
 *   rlimits on address space, open files, file size and core dumps.
 */

/**
 * Per-answer caps of the CPython runtime (the driver's hard rlimits; README.md lists them). `tasks` counts every
 * task of the answer's user namespace: bubblewrap's init, the interpreter's main thread and its threads. 64 lets an
 * answer that uses a thread pool run (EvalPlus solutions use none) and keeps two answers at once far from pid_max.
 */
export const NATIVE_CAPS = { tasks: 64, openFiles: 64, fileSizeMb: 16, tmpMb: 16 } as const;

/** The seccomp filter's tables and builder: run by a spawned answer process before its driver, or once by the warm template. */
const FILTER_PY = String.raw`
# Classic BPF, as the kernel's seccomp wants it: the architecture first (anything else is killed), then a deny list.
# Memory the RSS watch and RLIMIT_AS do not see is refused at its source: memfd_create (file pages in shmem, outside
# RSS once unmapped, up to RLIMIT_FSIZE each), SysV shared memory, message queues and semaphores, POSIX message
# queues (kernel memory of the IPC namespace, which outlives no process but is charged to nobody's RSS). /dev/shm and
# the root are read-only and /tmp is a 16 MB tmpfs (isolation.ts), so no file system holds more than that either.
_ARCH = {"x86_64": (0xC000003E, True), "aarch64": (0xC00000B7, False)}
_DENY = {
    "x86_64": dict(fork=57, vfork=58, execve=59, execveat=322, clone3=435, ptrace=101, socket=41, socketpair=53, unshare=272, setns=308, mount=165, umount2=166, pivot_root=155, chroot=161, keyctl=250, add_key=248, request_key=249, bpf=321, userfaultfd=323, perf_event_open=298, io_uring_setup=425, io_uring_enter=426, io_uring_register=427, process_vm_readv=310, process_vm_writev=311, kexec_load=246, init_module=175, finit_module=313, personality=135, open_tree=428, move_mount=429, fsopen=430, fsconfig=431, fsmount=432, fspick=433, mount_setattr=442, memfd_create=319, memfd_secret=447, shmget=29, shmat=30, shmctl=31, shmdt=67, msgget=68, msgsnd=69, msgrcv=70, msgctl=71, semget=64, semop=65, semctl=66, semtimedop=220, mq_open=240),
    "aarch64": dict(execve=221, execveat=281, clone3=435, ptrace=117, socket=198, socketpair=199, unshare=97, setns=268, mount=40, umount2=39, pivot_root=41, chroot=51, keyctl=219, add_key=217, request_key=218, bpf=280, userfaultfd=282, perf_event_open=241, io_uring_setup=425, io_uring_enter=426, io_uring_register=427, process_vm_readv=270, process_vm_writev=271, kexec_load=104, init_module=105, finit_module=273, personality=92, open_tree=428, move_mount=429, fsopen=430, fsconfig=431, fsmount=432, fspick=433, mount_setattr=442, memfd_create=279, memfd_secret=447, shmget=194, shmctl=195, shmat=196, shmdt=197, msgget=186, msgctl=187, msgrcv=188, msgsnd=189, semget=190, semctl=191, semtimedop=192, semop=193, mq_open=180),
}
_CLONE = {"x86_64": 56, "aarch64": 220}

def _sf_filter():
    """The filter's bytes (struct sock_filter[]) for this machine."""
    import platform, struct
    machine = platform.machine()
    if machine not in _ARCH:
        raise OSError("no seccomp filter for " + machine)
    arch, x32 = _ARCH[machine]
    LD, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06
    ALLOW, DENY, NOSYS, KILL = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38, 0x80000000
    prog = []  # (code, jt, jf, k) with jt/jf as labels resolved below
    prog.append((LD, 0, 0, 4))
    prog.append((JEQ, 0, "kill", arch))
    prog.append((LD, 0, 0, 0))
    if x32:
        prog.append((JGE, "deny", 0, 0x40000000))
    for name, nr in sorted(_DENY[machine].items(), key=lambda kv: kv[1]):
        # clone3 says ENOSYS, so that the C library falls back to clone, which the filter can inspect (threads only).
        prog.append((JEQ, "nosys" if name == "clone3" else "deny", 0, nr))
    prog.append((JEQ, 0, "allow", _CLONE[machine]))
    prog.append((LD, 0, 0, 16))
    prog.append((JSET, "allow", "deny", 0x10000))
    labels = {"allow": len(prog), "deny": len(prog) + 1, "nosys": len(prog) + 2, "kill": len(prog) + 3}
    prog += [(RET, 0, 0, ALLOW), (RET, 0, 0, DENY), (RET, 0, 0, NOSYS), (RET, 0, 0, KILL)]
    raw = b""
    for at, (code, jt, jf, k) in enumerate(prog):
        jt = labels[jt] - at - 1 if isinstance(jt, str) else jt
        jf = labels[jf] - at - 1 if isinstance(jf, str) else jf
        raw += struct.pack("=HBBI", code, jt, jf, k)
    return raw
`;

/** The driver: trusted code that runs first in the process, then hands it to the harness (harness-py.ts). */
const DRIVER_PY = String.raw`
import sys, os, json, time, resource, struct, ctypes, platform

# First, before anything else can use them: close every descriptor but 0, 1 and 2. A process inherits whatever its
# ancestors left open without close-on-exec (\`cli run 30>>log 31<secret\`, a shell's pipe, the editor's descriptors),
# and neither node's spawn nor bubblewrap closes those. close_range(2) where the kernel has it.
os.closerange(3, 1 << 30)
_cfg = json.loads(sys.argv[1])
# The protocol goes out on a private copy of fd 1; what the answer writes to fd 1 or 2 (os.write, C code) is dropped,
# as EvalPlus drops it. print() never gets there: the harness counts it against the output cap.
_proto = os.dup(1)
_null = os.open("/dev/null", os.O_WRONLY)
os.dup2(_null, 1)
os.dup2(_null, 2)
os.close(_null)

def _write_all(fd, data):
    while data:
        n = os.write(fd, data)
        data = data[n:]

def _sf_proto_send(line):
    _write_all(_proto, (str(line) + "\n").encode("utf-8", "surrogatepass"))

_MB = 1024 * 1024
# RLIMIT_NPROC caps threads: since Linux 5.14 the kernel counts tasks per user *namespace* (ucounts), and each answer
# has a user namespace of its own (bubblewrap --unshare-user), so the cap counts this answer's tasks only (its
# threads, the interpreter, bubblewrap's init) and not the user's other processes. The kernel skips the check for
# root (kuid 0), which is why the host drops to an unprivileged uid before bubblewrap when it runs as root.
for _lim, _val in ((resource.RLIMIT_AS, (_cfg["memoryMb"] + 512) * _MB), (resource.RLIMIT_NOFILE, __SF_NOFILE__), (resource.RLIMIT_FSIZE, __SF_FSIZE_MB__ * _MB), (resource.RLIMIT_CORE, 0), (resource.RLIMIT_NPROC, __SF_NPROC__)):
    resource.setrlimit(_lim, (_val, _val))

# The seccomp filter (FILTER_PY): built here, or once by the warm template, which hands it down as _SF_FILTER.
def _sf_seccomp():
    raw = _SF_FILTER if "_SF_FILTER" in globals() else _sf_filter()
    buf = ctypes.create_string_buffer(raw, len(raw))
    class _Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    fprog = _Prog(len(raw) // 8, ctypes.addressof(buf))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(38, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS failed")
    if libc.prctl(22, 2, ctypes.addressof(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_SET_SECCOMP failed")

try:
    _sf_seccomp()
except BaseException as e:
    _sf_proto_send(json.dumps({"type": "fatal", "message": "the seccomp filter could not be installed: %s" % e}))
    os._exit(70)
del ctypes, _sf_seccomp

class _SfCtl:
    """The harness's control object (the JavaScript one in worker-entry.ts): the host owns the deadlines and kills; the
    process only reports an input that came back after its limit, in CPU time, as a timeout."""
    def __init__(self):
        self.deadline = None
        self.limit = 0.0
        self.cpu0 = 0.0
    def arm(self, ms):
        self.limit = ms / 1000.0
        self.deadline = time.monotonic() + self.limit
        self.cpu0 = time.process_time()
    def disarm(self):
        self.deadline = None
    def expired(self):
        return self.deadline is not None and time.monotonic() > self.deadline and time.process_time() - self.cpu0 >= self.limit
    def raw_exceeded(self):
        return False
    def send(self, line):
        _sf_proto_send(line)

# A refused thread names the cap it ran into (pthread_create says only EAGAIN). The answer may undo this; it then
# fails all the same, with the interpreter's bare message.
import _thread
def _sf_thread_refused(start):
    def start_new_thread(*args, **kwargs):
        try:
            return start(*args, **kwargs)
        except RuntimeError as e:
            raise RuntimeError("%s: the sandbox's cap of __SF_NPROC__ tasks per answer (RLIMIT_NPROC) or its address space is reached" % e) from None
    return start_new_thread
_thread.start_new_thread = _thread.start_new = _sf_thread_refused(_thread.start_new_thread)
if "threading" in sys.modules:
    sys.modules["threading"]._start_new_thread = _thread.start_new_thread
del _thread, _sf_thread_refused

_sf_ctl = _SfCtl()
_sf_role = _cfg["role"]
_sf_cap = _cfg["outputCapBytes"]
_sf_stdin = os.fdopen(0, "rb", buffering=1 << 20)
_sf_proto_send(json.dumps({"type": "ready", "version": __SF_VERSION__, "pyodide": "CPython " + platform.python_version()}))
del _cfg, platform, resource, struct
`;

/** Serves jobs: one for an answer process, one at a time for a reference process. */
const SERVE_PY = String.raw`

def _sf_lines():
    while True:
        line = _sf_stdin.readline()
        if not line:
            return
        if line.strip():
            yield line

for _sf_n, _sf_line in enumerate(_sf_lines()):
    _sf_next = json.loads(_sf_line)["job"]
    if _sf_role == "answer":
        if _sf_n > 0:
            _sf_proto_send(json.dumps({"type": "fatal", "message": "an answer process runs one job only"}))
            break
        _sf_answer(_sf_next, _sf_ctl, _sf_cap)
        # Then wait for the host's kill (or end of input), as a Pyodide answer process does: the host reads its CPU time.
        continue
    try:
        _sf_expected(_sf_next, _sf_ctl)
    except BaseException as e:
        kind = "memory" if isinstance(e, MemoryError) else "error"
        _sf_proto_send(json.dumps({"type": "raise", "kind": kind, "error": ("%s: %s" % (type(e).__name__, e))[:300]}))
os._exit(0)
`;

/** The driver with its caps filled in. */
const DRIVER = DRIVER_PY.replace("__SF_VERSION__", String(PROTOCOL_VERSION)).replace("__SF_NOFILE__", String(NATIVE_CAPS.openFiles)).replace("__SF_FSIZE_MB__", String(NATIVE_CAPS.fileSizeMb)).replaceAll("__SF_NPROC__", String(NATIVE_CAPS.tasks));
/** The program a native sandbox process runs (`python -c`): the harness, then the driver that confines and serves. */
const CONFINED_PY = HARNESS_PY + "\n" + FILTER_PY + "\n" + DRIVER;
export const NATIVE_PROGRAM = CONFINED_PY + "\n" + SERVE_PY;

/**
 * The warm template (template.ts): a trusted interpreter that has run the harness's definitions and compiled the
 * driver, and never runs an answer. For each `{"fork": token}` line on its stdin it forks a **leader**, which moves
 * into a new user, mount, PID and IPC namespace, forks that PID namespace's init (it only holds the namespace open)
 * and then the **answer process**. The answer process, still trusted code, in order: leaves the template's session; dies with its leader;
 * mounts its own /proc (it sees itself alone) and its own /tmp (nothing another answer left); connects to the host's
 * socket and says its token; covers the socket's folder; drops every capability; points fds 0 and 1 at the connection;
 * reseeds `random` (a fork shares the template's state). Then it runs the driver as a fresh process does: descriptors,
 * rlimits, seccomp, `ready`, one job. The leader reports the answer's host pid on the template's stdout (trusted
 * lines only: the answer process replaces fds 0 and 1 before the driver, which closes the rest), waits for it, and
 * reports its exit. The template reaps its leaders.
 *
 * What stays shared with the template: its hash seed (PYTHONHASHSEED; as with EvalPlus's fork per answer) and the
 * read-only root, network and UTS namespaces of its bubblewrap.
 */
const TEMPLATE_PY = String.raw`
import gc, select, socket, _thread

_SF_DRIVER = compile(__SF_DRIVER_SRC__, "<sf-driver>", "exec")
_SF_SERVE = compile(__SF_SERVE_SRC__, "<sf-serve>", "exec")
_sf_globals = globals()

def _sf_template():
    cfg = json.loads(sys.argv[1])
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    libc.unshare.argtypes = [ctypes.c_int]
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    libc.capset.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    NEWNS, NEWUSER, NEWPID, NEWIPC = 0x00020000, 0x10000000, 0x20000000, 0x08000000
    RDONLY, NOSUID, NODEV, NOEXEC = 1, 2, 4, 8
    PDEATHSIG, SIGKILL = 1, 9
    me = os.getpid()
    sock_dir = os.path.dirname(cfg["socket"]).encode()

    def say(msg):
        data = (json.dumps(msg) + "\n").encode()
        while data:
            data = data[os.write(1, data):]

    def fork_into(step, token, code):
        """Forks; the child runs step(token) and never returns (a failure is said, with the token, then exit code)."""
        pid = os.fork()
        if pid == 0:
            try:
                step(token)
            except BaseException as e:
                say({"type": "failed", "token": token, "message": "%s: %s" % (type(e).__name__, e)})
            os._exit(code)
        return pid

    def check(r, what):
        if r != 0:
            e = ctypes.get_errno()
            raise OSError(e, "%s: %s" % (what, os.strerror(e)))

    # The read and write ends of the pipe that keeps an answer's namespace init alive (leader below).
    lifeline = [-1, -1]

    def answer_process(token):
        r, w = lifeline
        os.close(w)
        os.setsid()
        check(libc.prctl(PDEATHSIG, SIGKILL, 0, 0, 0), "PR_SET_PDEATHSIG")
        # A leader that died before that line sent no death signal. Its end of the lifeline is closed then, so the pipe
        # reads as ended, and this process ends too (its namespace's init is ending with the pipe anyway).
        if select.select([r], [], [], 0)[0]:
            os._exit(0)
        os.close(r)
        check(libc.mount(b"proc", b"/proc", b"proc", NOSUID | NODEV | NOEXEC, None), "mount /proc")
        check(libc.mount(b"tmpfs", b"/tmp", b"tmpfs", NOSUID | NODEV, b"size=%dm,mode=1777" % cfg["tmpMb"]), "mount /tmp")
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(cfg["socket"])
        fd = s.detach()
        hello = (json.dumps({"hello": token}) + "\n").encode()
        while hello:
            hello = hello[os.write(fd, hello):]
        check(libc.mount(b"tmpfs", sock_dir, b"tmpfs", RDONLY | NOSUID | NODEV | NOEXEC, b"size=4k"), "cover the socket folder")
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)
        caps = (ctypes.c_uint32 * 6)()
        check(libc.capset(header, caps), "capset")
        os.dup2(fd, 0)
        os.dup2(fd, 1)
        os.close(fd)
        random.seed()
        exec(_SF_DRIVER, _sf_globals)
        exec(_SF_SERVE, _sf_globals)
        os._exit(0)

    def leader(token):
        check(libc.prctl(PDEATHSIG, SIGKILL, 0, 0, 0), "PR_SET_PDEATHSIG")
        if os.getppid() != me:
            os._exit(1)
        uid, gid = os.getuid(), os.getgid()
        check(libc.unshare(NEWUSER | NEWNS | NEWPID | NEWIPC), "unshare")
        for name, text in (("setgroups", "deny"), ("uid_map", "%d %d 1" % (uid, uid)), ("gid_map", "%d %d 1" % (gid, gid))):
            with open("/proc/self/" + name, "w") as f:
                f.write(text)
        # The namespace's first process is its init, which only holds the namespace open (an answer process that were
        # pid 1 could not signal itself: the kernel shields a namespace's init from its own members). It lives exactly as
        # long as this leader: it waits on a pipe whose write end only the leader keeps (the answer process closes its
        # copy first, then reads the pipe once to know its leader is still there), and ends when the pipe does, however
        # early the leader died. A death signal set after the fork missed a leader killed before the init first ran (a
        # spare disposed at once, on a busy machine): that init lived on for good, and kept the template's bubblewrap
        # from ending. When an init ends, the kernel kills what is left in its namespace.
        r, w = os.pipe()
        if os.fork() == 0:
            os.dup2(r, 0)
            os.closerange(1, 1 << 30)
            while os.read(0, 1):
                pass
            os._exit(0)
        lifeline[:] = [r, w]
        pid = fork_into(answer_process, token, 71)
        os.close(r)
        say({"type": "forked", "token": token, "leader": os.getpid(), "pid": pid})
        while True:
            try:
                _, status = os.waitpid(pid, 0)
                break
            except InterruptedError:
                continue
        say({"type": "exited", "token": token, "status": status})
        os._exit(0)

    # Everything the template built moves to the collector's permanent generation: a collection in an answer process
    # would otherwise walk (and so copy, page by page) every object it inherited.
    gc.collect()
    gc.freeze()
    say({"type": "ready", "pid": me, "python": platform.python_version()})
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            break
        token = json.loads(line)["fork"]
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break
        try:
            fork_into(leader, token, 70)
        except OSError as e:
            say({"type": "failed", "token": token, "message": "fork: %s" % e})

_sf_template()
`;

/** The warm template's program (`python -c`): the harness's definitions, the modules the driver imports, the template. */
export const TEMPLATE_PROGRAM =
  HARNESS_PY +
  "\n" +
  FILTER_PY +
  "\nimport json, time, resource, struct, ctypes, platform\n_SF_FILTER = _sf_filter()\n" +
  TEMPLATE_PY.replace("__SF_DRIVER_SRC__", () => JSON.stringify(DRIVER)).replace("__SF_SERVE_SRC__", () => JSON.stringify(SERVE_PY));

export interface NativePython {
  /** The interpreter binary (not a shim). */
  bin: string;
  version: string;
  /** Folders the interpreter needs beyond the system ones (a pyenv or venv prefix), read-only in the sandbox. */
  mounts: string[];
}

/** Python versions the harness is written for (3.11 added sys.set_int_max_str_digits and operator.call). */
const MIN_MINOR = 11;

/**
 * Finds a CPython >= 3.11 to run answers in: SF_SANDBOX_PYTHON, else /usr/bin/python3, else `python3` on PATH resolved
 * to its real binary (a pyenv shim is a bash script). Checks, rather than assumes, that it starts inside the
 * confinement with the seccomp filter installed and that the filter refuses fork, sockets and exec. Once per process
 * (a failure is not remembered: the next pool probes again).
 */
const probed = new WeakMap<Confinement, { key: string; python: NativePython }>();

export function probeNativePython(confinement: Confinement): NativePython {
  const key = process.env.SF_SANDBOX_PYTHON ?? "";
  const hit = probed.get(confinement);
  if (hit?.key === key) return hit.python;
  const python = probeOnce(confinement);
  probed.set(confinement, { key, python });
  return python;
}

function probeOnce(confinement: Confinement): NativePython {
  const fix = { hint: "Choose the pyodide runtime (every platform) or auto (the default: CPython where it can run, else Pyodide), or install bubblewrap and CPython 3.11+ (apt-get install bubblewrap python3).", hintIds: ["sandboxPython"] as const };
  if (process.platform !== "linux" || confinement.kind !== "bubblewrap") {
    throw new SkillFollowingError(`The CPython sandbox needs Linux with bubblewrap; here the confinement is "${confinement.kind}".`, fix);
  }
  const candidates = [process.env.SF_SANDBOX_PYTHON, "/usr/bin/python3", "python3"].filter((c): c is string => !!c);
  let found: NativePython | undefined;
  for (const c of candidates) {
    const r = spawnSync(c, ["-I", "-S", "-c", "import sys, json; print(json.dumps([sys.executable, sys.version_info[:3], sys.base_prefix, sys.prefix]))"], { encoding: "utf8", timeout: 15000, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } });
    if (r.status !== 0) continue;
    try {
      const [exe, v, basePrefix, prefix] = JSON.parse(r.stdout) as [string, [number, number, number], string, string];
      if (v[0] !== 3 || v[1] < MIN_MINOR || !exe) continue;
      const bin = realpathSync(exe);
      const mounts = [...new Set([basePrefix, prefix, path.dirname(bin)])].filter((p) => existsSync(p) && !["/usr", "/lib", "/lib64"].some((d) => p === d || p.startsWith(d + "/")));
      found = { bin, version: v.join("."), mounts };
      break;
    } catch {
      continue;
    }
  }
  if (!found) throw new SkillFollowingError(`No CPython 3.${MIN_MINOR}+ found for the CPython sandbox (tried ${candidates.join(", ")}).`, fix);
  const probe = [
    "import os, socket, json",
    "r = {}",
    "for name, f in (('fork', os.fork), ('socket', lambda: socket.socket()), ('exec', lambda: os.execv('/bin/true', ['true']))):",
    "    try:",
    "        pid = f()",
    "        if pid == 0: os._exit(0)",
    "        r[name] = 'allowed'",
    "    except OSError as e:",
    "        r[name] = e.errno",
    "_sf_proto_send(json.dumps({'type': 'exec', 'stdout': json.dumps(r)}))",
  ].join("\n");
  const command = [...confinement.prefix(found.mounts, { native: true }), found.bin, "-I", "-S", "-B", "-c", CONFINED_PY + "\n" + probe, JSON.stringify({ role: "probe", memoryMb: 256, outputCapBytes: 1024 })];
  const r = spawnSync(command[0]!, command.slice(1), { encoding: "utf8", timeout: 15000, env: {}, input: "" });
  const lines = (r.stdout ?? "").split("\n").filter((l) => l.trim());
  let verdict: Record<string, unknown> | undefined;
  for (const l of lines) {
    try {
      const m = JSON.parse(l) as { type?: string; stdout?: string; message?: string };
      if (m.type === "fatal") throw new SkillFollowingError(`The CPython sandbox cannot start: ${m.message}`, fix);
      if (m.type === "exec" && m.stdout) verdict = JSON.parse(m.stdout) as Record<string, unknown>;
    } catch (e) {
      if (e instanceof SkillFollowingError) throw e;
    }
  }
  if (!verdict || Object.values(verdict).some((v) => v === "allowed")) {
    throw new SkillFollowingError(`The CPython sandbox's probe did not show its filter holding (${verdict ? JSON.stringify(verdict) : `exit ${r.status}, ${(r.stderr ?? "").trim().slice(0, 200)}`}).`, fix);
  }
  return found;
}
