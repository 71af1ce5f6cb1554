"""The zip archive of a checkpoint, laid out and read as PyTorch's PyTorchStreamWriter and
PyTorchStreamReader (caffe2/serialize/inline_container) do: stored records in one folder,
`<archive>/`, each record's bytes starting at a multiple of 64 from the archive's start (padding in a
local-header extra field) so that `torch.load(mmap=True)` can map them in place, and PyTorch's
reader errors for archives that are not, or are no longer, what a checkpoint should be.
"""
from __future__ import annotations

import io
import struct
import zipfile
import zlib
from typing import IO, Any

STORAGE_ALIGNMENT = 64

CORRUPT_MESSAGE = (" This is an internal miniz error. If you are seeing this error, there is a high likelihood "
                   "that your checkpoint file is corrupted. This can happen if the checkpoint was not saved "
                   "properly, was transferred incorrectly, or the file was modified after saving.")


class AlignedZipWriter:
    """Writes stored zip records whose data starts at multiples of 64 bytes (as PyTorch's writer)."""

    def __init__(self, fileobj: IO[bytes], prefix: str) -> None:
        self.zip = zipfile.ZipFile(fileobj, "w", zipfile.ZIP_STORED, allowZip64=True)
        self.start = self.zip.fp.tell() if self.zip.fp is not None else 0
        self.prefix = prefix

    def write(self, name: str, data: Any) -> None:
        view = memoryview(data).cast("B")
        info = zipfile.ZipInfo(f"{self.prefix}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_STORED
        info.file_size = view.nbytes
        zip64 = info.file_size * 1.05 > zipfile.ZIP64_LIMIT
        assert self.zip.fp is not None
        header = 30 + len(info.filename.encode("utf-8")) + (20 if zip64 else 0)
        position = self.zip.fp.tell() - self.start
        pad = -(position + header) % STORAGE_ALIGNMENT
        if pad:
            pad += STORAGE_ALIGNMENT if pad < 4 else 0
            info.extra = b"FB" + struct.pack("<H", pad - 4) + b"Z" * (pad - 4)
        with self.zip.open(info, "w", force_zip64=zip64) as out:
            for start in range(0, view.nbytes, 1 << 26):
                out.write(view[start:start + (1 << 26)])

    def close(self) -> None:
        self.zip.close()


_END_OF_CENTRAL_DIRECTORY_SIZE = 22


class ArchiveReader:
    """The records of a checkpoint archive, with PyTorch's reader errors."""

    def __init__(self, fileobj: IO[bytes]) -> None:
        start = fileobj.tell()
        size = fileobj.seek(0, io.SEEK_END) - start
        fileobj.seek(start)
        if size < _END_OF_CENTRAL_DIRECTORY_SIZE:     # miniz's test: too short to be an archive at all
            raise RuntimeError("PytorchStreamReader failed reading zip archive: not a ZIP archive." + CORRUPT_MESSAGE)
        try:
            self.zip = zipfile.ZipFile(fileobj)
            names = self.zip.namelist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, struct.error) as exc:
            raise RuntimeError("PytorchStreamReader failed reading zip archive: failed finding central directory."
                               + CORRUPT_MESSAGE) from exc
        if not names:
            raise RuntimeError("PytorchStreamReader failed reading zip archive: archive has no records."
                               + CORRUPT_MESSAGE)
        first = names[0]
        if "/" not in first:
            raise RuntimeError(f"file in archive is not in a subdirectory: {first}")
        self.prefix = first.split("/", 1)[0]
        for name in names:
            if not _inside_folder(name, self.prefix):
                raise RuntimeError(f"file in archive is not in a subdirectory {self.prefix}/: {name}")
        self.names = set(names)
        self.fileobj = fileobj

    def has(self, name: str) -> bool:
        return f"{self.prefix}/{name}" in self.names

    def info(self, name: str) -> zipfile.ZipInfo:
        if not self.has(name):
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not found." + CORRUPT_MESSAGE)
        return self.zip.getinfo(f"{self.prefix}/{name}")

    def read(self, name: str) -> bytes:
        info = self.info(name)
        try:
            return self.zip.read(info)
        except (zipfile.BadZipFile, EOFError, OSError, ValueError, struct.error, NotImplementedError) as exc:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: file read failed ({exc})."
                               + CORRUPT_MESSAGE) from exc

    def read_into(self, name: str, out: memoryview) -> None:
        """The record's bytes straight into out (exactly its size), a chunk at a time: no second
        copy of a large record, and never more inflated than the archive declares."""
        info = self.info(name)
        check_record_size(info, out.nbytes)
        try:
            if info.compress_type == zipfile.ZIP_STORED:
                self._read_stored(name, info, out)
                return
            with self.zip.open(info) as record:
                got = 0
                while got < out.nbytes:
                    chunk = record.read(min(_READ_CHUNK, out.nbytes - got))
                    if not chunk:
                        raise RuntimeError(f"record {name} ends after {got} of its {out.nbytes} bytes")
                    out[got:got + len(chunk)] = chunk
                    got += len(chunk)
                if record.read(1):        # reads to the end, which checks the CRC
                    raise RuntimeError(f"record {name} holds more than its declared {out.nbytes} bytes")
        except (zipfile.BadZipFile, EOFError, OSError, ValueError, struct.error, NotImplementedError) as exc:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: file read failed ({exc})."
                               + CORRUPT_MESSAGE) from exc

    def _read_stored(self, name: str, info: zipfile.ZipInfo, out: memoryview) -> None:
        """A stored record read by the file itself into out, its CRC checked as it goes."""
        self.fileobj.seek(self.data_offset(name))
        readinto = getattr(self.fileobj, "readinto", None)
        crc = 0
        got = 0
        while got < out.nbytes:
            piece = out[got:got + _STORED_STEP]
            if readinto is not None:
                n = readinto(piece)
            else:
                data = self.fileobj.read(piece.nbytes)
                n = len(data)
                piece[:n] = data
            if not n:
                raise RuntimeError(f"record {name} ends after {got} of its {out.nbytes} bytes")
            crc = zlib.crc32(piece[:n], crc)
            got += n
        if crc != info.CRC:
            raise zipfile.BadZipFile(f"Bad CRC-32 for file {name!r}")

    def data_offset(self, name: str) -> int:
        """Where the record's bytes start in the file (for mmap): after its local header."""
        info = self.info(name)
        if info.compress_type != zipfile.ZIP_STORED:
            raise RuntimeError(f"record {name} is compressed; mmap needs stored records")
        self.fileobj.seek(info.header_offset)
        header = self.fileobj.read(30)
        if len(header) != 30 or header[:4] != b"PK\x03\x04":
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: bad local header." + CORRUPT_MESSAGE)
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        return int(info.header_offset) + 30 + name_len + extra_len


# What a compressed record is inflated by: zipfile holds about three of these at once, the
# temporary memory of a load. A stored record is read straight into its storage, in larger steps.
_READ_CHUNK = 1 << 20
_STORED_STEP = 1 << 26


def check_record_size(info: zipfile.ZipInfo, nbytes: int) -> None:
    """A storage record holds exactly its storage's bytes (PyTorch's check and message)."""
    if info.file_size != nbytes:
        raise RuntimeError(f"record size ({info.file_size} bytes) does not match expected size ({nbytes} bytes = "
                           f"{nbytes} elements * 1 bytes/element) for dtype Byte")


def _inside_folder(name: str, folder: str) -> bool:
    """PyTorch's reader takes only records inside the archive's folder; a name that climbs out of
    it (`..`) or is absolute is refused as well, so no record can stand for a path elsewhere."""
    if not name.startswith(folder + "/"):
        return False
    parts = name.replace("\\", "/").split("/")
    return ".." not in parts
