"""What the package trusts: a key (`open(path, key=...)`), a file changed on disk
under an open Database (opened and checked again), a planted -wal (never read)."""

import shutil
import sqlite3
import subprocess

import pytest

import puzzlebase


def test_a_key_opens_only_the_signed_file(binary, tmp_path):
    pub, sec, other = tmp_path / "k.pub", tmp_path / "k.key", tmp_path / "o.pub"
    subprocess.run([binary, "keygen", "--public", pub, "--secret", sec], check=True)
    subprocess.run([binary, "keygen", "--public", other, "--secret", tmp_path / "o.key"],
                   check=True)
    db = tmp_path / "signed.sqlite"
    subprocess.run([binary, "generate", "-q", "--db", db, "--puzzle", "eight", "--sign", sec],
                   check=True)
    signed = puzzlebase.open(db, key=pub)
    assert signed.distance("eight", "867254301") == 31
    with pytest.raises(puzzlebase.FileError, match="key"):
        puzzlebase.open(db, key=other)
    # Changed on disk under the open Database: checked again, and refused.
    data = bytearray(db.read_bytes())
    data[-20] ^= 1
    db.write_bytes(bytes(data))
    with pytest.raises(puzzlebase.FileError, match="signature"):
        signed.distance("eight", "867254301")
    with pytest.raises(ValueError, match="key="):
        puzzlebase.open(db, signature=tmp_path / "x.minisig")


def test_a_planted_wal_is_never_read(db_path, tmp_path):
    copy, planted = tmp_path / "copy.sqlite", tmp_path / "planted.sqlite"
    shutil.copy(db_path, copy)
    shutil.copy(db_path, planted)
    w = sqlite3.connect(copy)
    w.execute("PRAGMA journal_mode = WAL")
    w.execute("PRAGMA wal_autocheckpoint = 0")
    w.execute("UPDATE positions SET distance = 33 WHERE puzzle = 'eight' "
              "AND state = '867254301'")
    w.commit()
    shutil.copy(str(copy) + "-wal", str(planted) + "-wal")
    w.close()
    assert puzzlebase.open(planted).distance("eight", "867254301") == 31
    assert not (tmp_path / "planted.sqlite-shm").exists()
