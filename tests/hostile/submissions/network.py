# Reaches for the host: TCP and UDP on 127.0.0.1, a UNIX socket by path, an abstract UNIX socket.
import socket


def attempt(family, kind, address, datagram=False):
    try:
        with socket.socket(family, kind) as sock:
            sock.settimeout(2)
            if datagram:
                sock.sendto(b"leak", address)
            else:
                sock.connect(address)
                sock.sendall(b"leak")
        return "reached"
    except OSError:
        return "blocked"


def tcp():
    return attempt(socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", {tcp_port}))


def udp():
    return attempt(socket.AF_INET, socket.SOCK_DGRAM, ("127.0.0.1", {udp_port}), datagram=True)


def unix():
    return attempt(socket.AF_UNIX, socket.SOCK_STREAM, "{unix_path}")


def abstract():
    return attempt(socket.AF_UNIX, socket.SOCK_STREAM, "\0{abstract_name}")


def square(n):
    return n * n
