"""A .zip handed in, unpacked into memory, never onto the disk: a member that would land outside the folder
(`../`, an absolute path), a link, a device, an encrypted member, too many members or too many bytes
unpacked (a zip bomb) refuse the whole hand-in with the reason."""

from __future__ import annotations

import stat
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from grader.handins.base import Context, Handin, refuse
from grader.handins.text import MAX_FILE_BYTES, read_bytes
from grader.handins.tree import MAX_FILES, MAX_TOTAL_BYTES, Tree, handin_of, wanted

if TYPE_CHECKING:
    import zipfile

MAX_ARCHIVE_BYTES = 16 << 20


class ZipForm:
    name = "zip"

    def read(self, path: Path, context: Context) -> Handin:
        data, problem = read_bytes(path, MAX_ARCHIVE_BYTES)
        if data is None:
            return refuse(problem, form=self.name)
        import io
        import zipfile  # only for a zip: `grader check` of a .py file never pays for it

        if (directory := _directory_bytes(data)) > MAX_DIRECTORY_BYTES:
            return refuse(f"the zip's list of members takes {directory} bytes; a zip of at most {MAX_FILES} "
                          f"members takes far less, so it is not read", form=self.name)
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                return self._unpacked(archive, context)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, ValueError,
                OSError) as error:
            return refuse(f"the zip cannot be read: {error}", form=self.name)
        except Exception as error:  # zlib.error, struct.error, a RuntimeError: all a broken zip's doing
            return refuse(f"the zip cannot be read: {type(error).__name__}", form=self.name)

    def _unpacked(self, archive: zipfile.ZipFile, context: Context) -> Handin:
        members = archive.infolist()
        if len(members) > MAX_FILES:
            return refuse(f"the zip has {len(members)} members; at most {MAX_FILES} are unpacked, so it is not "
                          f"graded", form=self.name)
        declared = sum(member.file_size for member in members)
        if declared > MAX_TOTAL_BYTES:
            return refuse(f"the zip would unpack to {declared} bytes, more than the {MAX_TOTAL_BYTES} allowed "
                          f"(a zip bomb?); it is not unpacked", form=self.name)
        files: dict[str, bytes] = {}
        for member in members:
            problem = _refused_member(member)
            if problem:
                return refuse(problem, form=self.name)
            name = member.filename.rstrip("/")
            if member.is_dir() or not wanted(name, context):
                continue
            if member.file_size > MAX_FILE_BYTES:
                return refuse(f"{name} unpacks to {member.file_size} bytes; the limit is {MAX_FILE_BYTES}",
                              form=self.name)
            with archive.open(member) as stream:
                content = stream.read(MAX_FILE_BYTES + 1)  # never more than declared: zipfile stops there
            files[name] = content
        return handin_of(Tree(files, self.name, "the zip"), context)


# zipfile reads the whole central directory into objects (~600 bytes each) before anything can count the
# members: its declared size is checked first. Every member takes 46 bytes and its name there.
MAX_DIRECTORY_BYTES = MAX_FILES * 1024
END_OF_DIRECTORY = b"PK\x05\x06"


def _directory_bytes(data: bytes) -> int:
    """The central directory's size as the end record declares it (zipfile's own reading, which a zip64
    record only makes larger: 0xFFFFFFFF); 0 when there is no end record (zipfile then refuses it)."""
    end = data.rfind(END_OF_DIRECTORY, max(0, len(data) - (1 << 16) - 22))
    return int.from_bytes(data[end + 12:end + 16], "little") if end >= 0 else 0


def _refused_member(member: zipfile.ZipInfo) -> str:
    name = member.filename
    pure = PurePosixPath(name.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts or (len(name) > 1 and name[1] == ":"):
        return f"the zip member {name!r} would unpack outside the folder; the zip is not unpacked"
    # The high 16 bits are a Unix mode; only its file type matters (0: no type written, a plain file).
    mode = stat.S_IFMT(member.external_attr >> 16)
    if stat.S_ISLNK(mode):
        return f"the zip member {name!r} is a symbolic link; links are not unpacked, so the zip is not graded"
    if mode and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        return f"the zip member {name!r} is a device, a pipe or a socket; the zip is not unpacked"
    if member.flag_bits & 0x1:
        return f"the zip member {name!r} is encrypted; hand in a zip without a password"
    return ""
