# Reaches for what root, a capability or an unfiltered system call would give: each attack returns
# "denied" when it is stopped, and what it got otherwise.
import ctypes
import os
import stat
import time

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
AT_FDCWD = -100


def identity():
    """'unprivileged' when no uid is 0, no capability is in any set and no_new_privs is on, and whether the
    bounding set is empty too: from /proc/self/status, or (Landlock hides /proc) asked of the kernel."""
    try:
        text = open("/proc/self/status").read()
    except OSError:
        uids, caps, no_new_privs = list(os.getresuid()), _caps_by_syscalls(), str(libc.prctl(39, 0, 0, 0, 0))
    else:
        fields = dict(line.split(":\t", 1) for line in text.splitlines() if ":\t" in line)
        uids = [int(x) for x in fields["Uid"].split()]
        caps = {name: int(fields[name], 16) for name in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")}
        no_new_privs = fields["NoNewPrivs"].strip()
    bounding = caps.pop("CapBnd")
    if 0 in uids or any(caps.values()) or no_new_privs != "1":
        return "uid %s %s CapBnd=%s NoNewPrivs=%s" % (uids, {k: hex(v) for k, v in caps.items()}, hex(bounding),
                                                      no_new_privs)
    return "unprivileged, " + ("no bounding set" if bounding == 0 else "bounding set " + hex(bounding))


def _caps_by_syscalls():
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)
    data = (ctypes.c_uint32 * 6)()
    _syscall(125, header, data)  # capget
    bounding = ambient = 0
    for cap in range(64):
        in_bounding = libc.prctl(23, cap, 0, 0, 0)  # PR_CAPBSET_READ: -1 past the last capability
        if in_bounding < 0:
            break
        bounding |= in_bounding << cap
        ambient |= max(libc.prctl(47, 1, cap, 0, 0), 0) << cap  # PR_CAP_AMBIENT_IS_SET
    return {"CapEff": data[0] | data[3] << 32, "CapPrm": data[1] | data[4] << 32,
            "CapInh": data[2] | data[5] << 32, "CapBnd": bounding, "CapAmb": ambient}


def _denied(call):
    try:
        got = call()
    except OSError:
        return "denied"
    return "got %r" % (got,)


def _syscall(number, *args):
    result = libc.syscall(number, *args)
    if result < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return result


def device_node():
    def make():
        os.mknod("kmsg-node", stat.S_IFCHR | 0o600, os.makedev(1, 11))
        with open("kmsg-node", "rb") as node:
            return node.read(80)
    return _denied(make)


def block_node():
    return _denied(lambda: os.mknod("disk-node", stat.S_IFBLK | 0o600, os.makedev(254, 0)))


def fifo():
    os.mkfifo("pipe")  # harmless: a FIFO is not a device
    return "made" if stat.S_ISFIFO(os.stat("pipe").st_mode) else "not a fifo"


def kmsg():
    def read():
        with open("/dev/kmsg", "rb") as log:
            return log.read(80)
    return _denied(read)


def syslog():
    buffer = ctypes.create_string_buffer(4096)
    return _denied(lambda: _syscall(103, 3, buffer, 4096))  # SYSLOG_ACTION_READ_ALL


def block_device():
    """Open the first block device in /dev, or any /dev/vd*, /dev/sd*, /dev/nvme* that exists."""
    names = []
    try:
        names = [n for n in os.listdir("/dev") if stat.S_ISBLK(os.stat("/dev/" + n).st_mode)]
    except OSError:
        pass
    for name in names + ["vda", "sda", "nvme0n1", "xvda", "loop0"]:
        try:
            fd = os.open("/dev/" + name, os.O_RDONLY)
        except OSError:
            continue
        os.close(fd)
        return "opened /dev/" + name
    return "denied"


def mount_setattr():
    attr = (ctypes.c_uint64 * 4)(0, 0x4, 0, 0)  # clear MOUNT_ATTR_NODEV on /
    return _denied(lambda: _syscall(442, AT_FDCWD, b"/", 0, attr, 32))


def new_mount_api():
    got = []
    for name, call in (("fsopen", lambda: _syscall(430, b"tmpfs", 0)),
                       ("open_tree", lambda: _syscall(428, AT_FDCWD, b"/", 1)),  # OPEN_TREE_CLONE
                       ("fspick", lambda: _syscall(433, AT_FDCWD, b"/", 0)),
                       ("move_mount", lambda: _syscall(429, AT_FDCWD, b"/tmp", AT_FDCWD, b"/mnt", 0)),
                       ("fsmount", lambda: _syscall(432, 0, 0, 0)),
                       ("fsconfig", lambda: _syscall(431, 0, 0, 0, 0, 0))):
        try:
            call()
            got.append("done:" + name)
        except OSError as error:
            if error.errno != 1:  # EPERM is the filter's (and a missing capability's) answer
                got.append("%s: %s" % (name, error.strerror))
    return "denied" if not got else " ".join(got)


def set_clock():
    now = time.time()
    timespec = (ctypes.c_long * 2)(int(now), 0)
    timeval = (ctypes.c_long * 2)(int(now), 0)
    got = []
    for name, call in (("clock_settime", lambda: _syscall(227, 0, timespec)),
                       ("settimeofday", lambda: _syscall(164, timeval, None))):
        if _denied(call) != "denied":
            got.append(name)
    return "denied" if not got else " ".join(got)


def read_clock_state():
    timex = ctypes.create_string_buffer(256)  # modes 0: a read, which needs no capability
    return _denied(lambda: _syscall(159, timex)) + " " + _denied(lambda: _syscall(305, 0, timex))


def accounting():
    open("acct-file", "w").close()

    def switch_on():
        _syscall(163, b"acct-file")
        _syscall(163, None)  # and off again at once: this machine's accounting is not the test's
        return "switched on"
    return _denied(switch_on)


def kernel_kin():
    got = []
    for name, call in (("quotactl", lambda: _syscall(179, 0x800002, b"/", 0, None)),  # Q_SYNC
                       ("swapoff", lambda: _syscall(168, b"/nonexistent")),
                       ("reboot", lambda: _syscall(169, 0, 0, 0, None)),
                       ("init_module", lambda: _syscall(175, None, 0, b"")),
                       ("kexec_file_load", lambda: _syscall(320, -1, -1, 0, b"", 0))):
        try:
            call()
            got.append("done:" + name)
        except OSError as error:
            if error.errno != 1:
                got.append("%s: %s" % (name, error.strerror))
    return "denied" if not got else " ".join(got)


def square(n):
    return n * n
