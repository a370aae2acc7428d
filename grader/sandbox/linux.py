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
PR_CAPBSET_DROP = 24
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4


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


# ---------------------------------------------------------------- capabilities
_SYS_CAPGET, _SYS_CAPSET = 125, 126
_CAPABILITY_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_bounding_set() -> None:
    """Drop every capability from the bounding set: no program exec'd later can hold one, file
    capabilities included. Needs CAP_SETPCAP (root); EPERM without it."""
    for capability in range(64):  # until EINVAL, past the kernel's last (a private /proc has no /proc/sys)
        if _libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) == -1:
            if ctypes.get_errno() == 22 and capability > 0:
                return
            raise _fail(f"dropping capability {capability} from the bounding set")


def clear_capabilities() -> None:
    """Clear the ambient, effective, permitted and inheritable sets of this thread (always allowed)."""
    if _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1 and ctypes.get_errno() != 22:
        raise _fail("clearing the ambient capabilities")  # EINVAL: a kernel before ambient capabilities
    header = _CapHeader(_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    if _libc.syscall(_SYS_CAPSET, ctypes.byref(header), data) != 0:
        raise _fail("capset")


def capabilities() -> tuple[int, int, int]:
    """(effective, permitted, inheritable) of this thread, as 64-bit masks."""
    header = _CapHeader(_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    if _libc.syscall(_SYS_CAPGET, ctypes.byref(header), data) != 0:
        raise _fail("capget")
    return tuple(getattr(data[0], name) | getattr(data[1], name) << 32  # type: ignore[return-value]
                 for name in ("effective", "permitted", "inheritable"))


# ---------------------------------------------------------------- seccomp
# x86_64 numbers of the system calls an exercise never needs and an escape often does. Sockets are denied
# except AF_UNIX (asyncio makes a socketpair), which is the no-network layer that also works in containers.
_DENIED_X86_64 = {
    # network
    "socket": 41, "connect": 42, "accept": 43, "sendto": 44, "recvfrom": 45, "sendmsg": 46,
    "recvmsg": 47, "bind": 49, "listen": 50, "socketpair": 53, "accept4": 288,
    # other processes' memory and the kernel's attack surface
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "process_madvise": 440,
    "pidfd_getfd": 438, "kcmp": 312, "personality": 135, "bpf": 321, "userfaultfd": 323,
    "perf_event_open": 298, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "add_key": 248, "request_key": 249, "keyctl": 250, "iopl": 172, "ioperm": 173,
    "lookup_dcookie": 212, "fanotify_init": 300, "uselib": 134, "_sysctl": 156,
    # mounts and namespaces, the new mount API and the mount table included
    "mount": 165, "umount2": 166, "unshare": 272, "setns": 308, "pivot_root": 155, "chroot": 161,
    "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "mount_setattr": 442, "statmount": 457, "listmount": 458, "open_tree_attr": 467,
    "open_by_handle_at": 304, "name_to_handle_at": 303,
    # the machine's clock, log, accounting, quotas, swap, modules and power
    "settimeofday": 164, "clock_settime": 227, "adjtimex": 159, "clock_adjtime": 305, "syslog": 103,
    "acct": 163, "quotactl": 179, "quotactl_fd": 443, "swapon": 167, "swapoff": 168, "reboot": 169,
    "kexec_load": 246, "kexec_file_load": 320, "init_module": 175, "finit_module": 313,
    "delete_module": 176, "sethostname": 170, "setdomainname": 171, "vhangup": 153, "nfsservctl": 180,
}
# mknod() and mknodat() of a character or block device are denied; a FIFO or a plain file (os.mkfifo) is not.
_MKNOD, _MKNODAT = 133, 259
_S_IFMT, _S_IFCHR, _S_IFBLK = 0o170000, 0o020000, 0o060000
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
    for number, mode_offset in ((_MKNOD, 24), (_MKNODAT, 32)):  # the mode: args[1], args[2]
        program += [(jump_eq, 0, 4, number), (load_word, 0, 0, mode_offset), (and_k, 0, 0, _S_IFMT),
                    (jump_eq, "deny", 0, _S_IFCHR), (jump_eq, "deny", "allow", _S_IFBLK)]
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
