"""Part of the sandbox's harness (see harness.py; sent to the sandbox as one text with it, right after it):
its channel to the grader. Requests come in on fd 3 (marshal data, big given numbers as raw bytes after
it); replies go out on fd 4 as length-prefixed JSON text, a big test result's raw numbers after a NUL.
Uses the names harness.py defines; imports nothing from grader."""


def read_exact(size):
    chunks, got = [], 0
    while got < size:  # joined once: `data += chunk` copied a 14 MB request ~200 times (a second of CPU)
        chunk = _read(REQUESTS, size - got)
        if not chunk:
            _exit(0)  # the grader went away
        chunks.append(chunk)
        got += len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def receive():
    """The next request. Its raw attachments (a big `given` list or array's bytes, see wire.framed) follow
    the marshal part and are read straight into buffers of their own: never copied again, never unmarshalled."""
    request = _loads(read_exact(int.from_bytes(read_exact(4), "big")))
    sizes = request.get("attachments") if type(request) is dict else None
    if sizes:
        request["attachments"] = [read_into(bytearray(size)) for size in sizes]
    return request


def read_into(buffer):
    view, got = memoryview(buffer), 0
    while got < len(buffer):
        count = _readv(REQUESTS, [view[got:]])
        if not count:
            _exit(0)  # the grader went away
        got += count
    return buffer


def send(message, attachment=None):
    """A reply: its JSON text; with `attachment` (fd, size), a NUL and the test child's result file after
    it, copied by the kernel (sendfile) and never read or parsed here."""
    data = frame(message).encode("ascii")
    if attachment is None:
        _write(REPLIES, len(data).to_bytes(4, "big") + data)
        return
    fd, size = attachment
    data += b" " * (-(len(data) + 1) % 8)  # the result starts 8-aligned in the grader's buffer (see attach)
    _write(REPLIES, (len(data) + 1 + size).to_bytes(4, "big") + data + b"\0")
    sent = 0
    try:
        while sent < size:
            count = os.sendfile(REPLIES, fd, sent, size - sent)
            if not count:
                break
            sent += count
    except OSError:
        pass
    while sent < size:  # the file came up short (or sendfile is refused): the frame keeps its length
        chunk = os.pread(fd, min(size - sent, 1 << 20), sent) or b"\0" * min(size - sent, 1 << 20)
        _write(REPLIES, chunk)
        sent += len(chunk)


def frame(message):
    """A reply of ours (str keys; str, int, float, bool, None or tagged values) as a JSON object."""
    return "{" + ", ".join(_json_str(k) + ": " + literal(v) for k, v in message.items()) + "}"


# While frame_parts writes a test's result: the raw bytes its arrays and number lists point to, and their
# end offset. None otherwise (then arrays go as base64 inside the text, as `literal` alone writes them).
_blobs = None
_blob_end = 0


def frame_parts(message):
    """A test child's result as buffers to write in order: its JSON text, and when it holds raw numbers,
    a NUL and their bytes (a JSON text holds no NUL byte: the grader splits there)."""
    global _blobs, _blob_end
    _blobs, _blob_end = blobs, _ = [], 0
    try:
        text = frame(message).encode("ascii")
    finally:
        _blobs = None
    if not blobs:
        return [text]
    return [text + b" " * (-(len(text) + 1) % 8), b"\0", *blobs]


def attach(buffer, size):
    """Keep `buffer` (size bytes) for the result's binary part; its offset there. Every offset is a multiple
    of 8, as is where the part starts (the texts before it are padded): the grader's arrays over these
    bytes are aligned, and numpy's fast loops apply to them."""
    global _blob_end
    offset = _blob_end
    _blobs.append(buffer)
    pad = -size % 8
    if pad:
        _blobs.append(b"\0" * pad)
    _blob_end += size + pad
    return offset


def write_parts(fd, parts):
    """Write every buffer in order (writev: no joined copy of a big result)."""
    views = [memoryview(part).cast("B") for part in parts]
    while views:
        count = _writev(fd, views[:1024])
        while views and count >= len(views[0]):
            count -= len(views[0])
            views.pop(0)
        if views and count:
            views[0] = views[0][count:]
