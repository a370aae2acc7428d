"""Linux primitives that Python 3.11's os module lacks: prctl, namespaces, mounts, seccomp, Landlock."""

from __future__ import annotations

import ctypes
import os
from collections.abc import Iterable

# CDLL(None) is the C library the interpreter already links: no ctypes.util search (~15 ms of imports).
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
_libc.syscall.restype = ctypes.c_long

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWNET = 0x40000000

MS_NOSUID, MS_NODEV, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 4096, 16384, 1 << 18

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_SECCOMP = 22
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38


def _fail(what: str) -> OSError:
    err = ctypes.get_errno()
    return OSError(err, f"{what}: {os.strerror(err)}")


def prctl(option: int, arg: int = 0) -> None:
    if _libc.prctl(option, arg, 0, 0, 0) == -1:
        raise _fail(f"prctl({option})")


def unshare(flags: int) -> None:
    if _libc.unshare(flags) != 0:
        raise _fail("unshare")


def setns(fd: int, nstype: int) -> None:
    if _libc.setns(fd, nstype) != 0:
        raise _fail("setns")


def mount(source: str, target: str, fstype: str | None, flags: int = 0, data: str | None = None) -> None:
    encoded = [s.encode() if s is not None else None for s in (source, target, fstype, data)]
    if _libc.mount(encoded[0], encoded[1], encoded[2], flags, encoded[3]) != 0:
        raise _fail(f"mount {target}")


# ---------------------------------------------------------------- seccomp
# x86_64 numbers of the system calls an exercise never needs and an escape often does. Sockets are denied
# except AF_UNIX (asyncio makes a socketpair), which is the no-network layer that also works in containers.
_DENIED_X86_64 = {
    "socket": 41, "connect": 42, "accept": 43, "sendto": 44, "recvfrom": 45, "sendmsg": 46,
    "recvmsg": 47, "bind": 49, "listen": 50, "socketpair": 53, "accept4": 288, "ptrace": 101,
    "personality": 135, "mount": 165, "umount2": 166, "add_key": 248, "request_key": 249,
    "keyctl": 250, "unshare": 272, "perf_event_open": 298, "open_by_handle_at": 304, "setns": 308,
    "process_vm_readv": 310, "process_vm_writev": 311, "bpf": 321, "userfaultfd": 323,
    "io_uring_setup": 425, "pidfd_getfd": 438, "kexec_load": 246, "init_module": 175,
    "finit_module": 313, "delete_module": 176, "pivot_root": 155, "chroot": 161, "swapon": 167,
    "reboot": 169, "sethostname": 170,
}
_SOCKET, _SOCKETPAIR, _AF_UNIX = 41, 53, 1
_CLONE, _CLONE3 = 56, 435
_CLONE_NEW_ANY = 0x7E020000  # CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
_ENOSYS = 38
_AUDIT_ARCH_X86_64 = 0xC000003E
_RET_KILL_PROCESS, _RET_ERRNO, _RET_ALLOW = 0x80000000, 0x00050000, 0x7FFF0000
_EPERM = 1


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def seccomp_supported() -> bool:
    return os.uname().machine == "x86_64"


def install_seccomp_filter() -> None:
    """Deny the syscalls above with EPERM (AF_UNIX sockets allowed), and clone() into new namespaces;
    clone3() answers ENOSYS; kill foreign ABIs. Irreversible."""
    load_word, jump_eq, jump_ge, ret, and_k = 0x20, 0x15, 0x35, 0x06, 0x54
    program: list[tuple[int, int | str, int | str, int]] = [
        (load_word, 0, 0, 4),  # architecture
        (jump_eq, 1, 0, _AUDIT_ARCH_X86_64),
        (ret, 0, 0, _RET_KILL_PROCESS),
        (load_word, 0, 0, 0),  # syscall number
        (jump_ge, 0, 1, 0x40000000),  # the x32 ABI
        (ret, 0, 0, _RET_KILL_PROCESS),
    ]
    for number in (_SOCKET, _SOCKETPAIR):
        # not this call: skip the two instructions that test the domain argument (args[0], offset 16)
        program += [(jump_eq, 0, 2, number), (load_word, 0, 0, 16), (jump_eq, "allow", "deny", _AF_UNIX)]
    # clone() into new namespaces (a user namespace above all: kernel attack surface) is denied; clone3()
    # hides its flags in memory, so it answers ENOSYS and glibc falls back to clone() (as Docker does).
    program += [(jump_eq, 0, 3, _CLONE), (load_word, 0, 0, 16), (and_k, 0, 0, _CLONE_NEW_ANY),
                (jump_eq, "allow", "deny", 0), (jump_eq, "enosys", 0, _CLONE3)]
    for number in sorted(set(_DENIED_X86_64.values()) - {_SOCKET, _SOCKETPAIR}):
        program.append((jump_eq, "deny", 0, number))
    program += [(ret, 0, 0, _RET_ALLOW), (ret, 0, 0, _RET_ERRNO | _EPERM), (ret, 0, 0, _RET_ERRNO | _ENOSYS)]
    targets = {"allow": len(program) - 3, "deny": len(program) - 2, "enosys": len(program) - 1}
    compiled = []
    for index, (code, jt, jf, k) in enumerate(program):
        jt_offset = targets[jt] - index - 1 if isinstance(jt, str) else jt
        jf_offset = targets[jf] - index - 1 if isinstance(jf, str) else jf
        compiled.append(_SockFilter(code, jt_offset, jf_offset, k))
    array = (_SockFilter * len(compiled))(*compiled)
    fprog = _SockFprog(len(compiled), array)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    address = ctypes.cast(ctypes.pointer(fprog), ctypes.c_void_p).value or 0
    if _libc.prctl(PR_SET_SECCOMP, 2, address, 0, 0) != 0:
        raise _fail("seccomp")


# ---------------------------------------------------------------- Landlock
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1, 2, 4, 8
_READ_ONLY = _EXECUTE | _READ_FILE | _READ_DIR
_FILE_RIGHTS = _EXECUTE | _WRITE_FILE | _READ_FILE | (1 << 14)  # + TRUNCATE


_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1, 2  # ABI >= 6


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is unavailable."""
    if os.uname().machine != "x86_64":
        return 0
    version = _libc.syscall(_SYS_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)
    return max(int(version), 0)


def _fs_rights(abi: int) -> int:
    rights = (1 << 13) - 1
    if abi >= 2:
        rights |= 1 << 13  # REFER
    if abi >= 3:
        rights |= 1 << 14  # TRUNCATE
    if abi >= 5:
        rights |= 1 << 15  # IOCTL_DEV
    return rights


def landlock_scopes(abi: int | None = None) -> bool:
    """Whether Landlock can scope signals and abstract UNIX sockets to the sandbox (ABI >= 6)."""
    return (landlock_abi() if abi is None else abi) >= 6


def landlock_restrict(read_only: Iterable[str], read_write: Iterable[str]) -> None:
    """Allow reads beneath `read_only`, everything beneath `read_write`, nothing else; no TCP (ABI >= 4).
    With ABI >= 6 the sandbox also cannot signal a process outside it (the grader, the teacher's shell:
    this is what confines kill() when the grader is not root) nor reach an abstract UNIX socket."""
    abi = landlock_abi()
    if abi < 1:
        raise OSError(95, "Landlock is not available")
    all_fs = _fs_rights(abi)
    net = 3 if abi >= 4 else 0  # BIND_TCP | CONNECT_TCP: handled, and allowed for no port
    scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL if landlock_scopes(abi) else 0
    attr = _RulesetAttr(all_fs, net, scoped)
    size = 24 if scoped else 16 if net else 8  # the struct as the kernel's ABI knows it
    ruleset = _libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), size, 0)
    if ruleset < 0:
        raise _fail("landlock_create_ruleset")
    try:
        for paths, rights in ((read_only, _READ_ONLY), (read_write, all_fs)):
            for path in paths:
                if not os.path.exists(path):
                    continue
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                allowed = rights if os.path.isdir(path) else rights & _FILE_RIGHTS
                rule = _PathBeneath(allowed & all_fs, fd)
                failed = _libc.syscall(_SYS_ADD_RULE, ruleset, 1, ctypes.byref(rule), 0) != 0
                os.close(fd)
                if failed:
                    raise _fail(f"landlock_add_rule {path}")
        prctl(PR_SET_NO_NEW_PRIVS, 1)
        if _libc.syscall(_SYS_RESTRICT_SELF, ruleset, 0) != 0:
            raise _fail("landlock_restrict_self")
    finally:
        os.close(ruleset)
