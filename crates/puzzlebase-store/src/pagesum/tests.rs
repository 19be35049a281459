//! The page rule and the checking VFS, on files written through it.

use super::*;

#[test]
fn the_sums_are_the_wal_rule_started_at_the_page_number() {
    assert_eq!(checksum(0, &[0; 16]), [0; 8]);
    // One pair (1, 2) on page 0: s1 = 1, s2 = 2 + 1 = 3.
    let mut d = [0u8; 8];
    d[0] = 1;
    d[4] = 2;
    assert_eq!(checksum(0, &d), [1, 0, 0, 0, 3, 0, 0, 0]);
    // On page 5: s1 = 5 + 1 = 6, s2 = 2 + 6 = 8.
    assert_eq!(checksum(5, &d), [6, 0, 0, 0, 8, 0, 0, 0]);
    // Wrapping past 2^32 stays defined.
    let d = [0xFFu8; 16];
    let s = checksum(0, &d);
    let s1 = u32::from_le_bytes(s[..4].try_into().unwrap());
    let s2 = u32::from_le_bytes(s[4..].try_into().unwrap());
    let (mut a, mut b) = (0u32, 0u32);
    for _ in 0..2 {
        a = a.wrapping_add(u32::MAX).wrapping_add(b);
        b = b.wrapping_add(u32::MAX).wrapping_add(a);
    }
    assert_eq!((s1, s2), (a, b));
}

/// A file of 2,000 rows written through the VFS, its bytes and page size.
fn written(path: &Path) -> (Vec<u8>, usize) {
    install().unwrap();
    let conn = rusqlite::Connection::open(path).unwrap();
    reserve(&conn).unwrap();
    conn.execute_batch(
        "CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
         INSERT INTO t SELECT i, printf('value %d', i) FROM n;",
    )
    .unwrap();
    drop(conn);
    let bytes = std::fs::read(path).unwrap();
    let page = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
    (bytes, page)
}

/// Reading the whole table from `bytes` written to `path`, read pages and mapped
/// ones: the page that failed, or `None` when it reads.
fn refused_page(path: &Path, bytes: &[u8]) -> [Option<u64>; 2] {
    std::fs::write(path, bytes).unwrap();
    [0u64, 1_000_000_000].map(|mmap| {
        let conn = rusqlite::Connection::open(path).unwrap();
        conn.execute_batch(&format!("PRAGMA mmap_size = {mmap};"))
            .unwrap();
        match conn.query_row("SELECT sum(length(v)) FROM t", [], |r| r.get::<_, i64>(0)) {
            Ok(_) => None,
            Err(e) => {
                assert!(is_damage(&e), "{e}");
                Some(damaged_page().unwrap())
            }
        }
    })
}

#[test]
fn pages_written_through_the_vfs_carry_checksums_and_a_flip_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sums.sqlite");
    let (mut bytes, page) = written(&path);
    let check = rusqlite::Connection::open(&path).unwrap();
    assert_eq!(reserved(&check).unwrap(), RESERVED as i32);
    drop(check);
    assert_eq!(bytes[20], RESERVED);
    let value = file_value(&bytes[..page]);
    assert!(bytes.chunks(page).all(|p| file_value(p) == value));
    assert!(failing_pages_of(&bytes, page).is_empty());
    assert!(failing_pages(&path).unwrap().is_empty());
    assert_eq!(refused_page(&path, &bytes), [None, None]);
    // A bit flipped in the third page: reading the table fails as damage, page 3.
    bytes[2 * page + 300] ^= 0x10;
    assert_eq!(refused_page(&path, &bytes), [Some(3), Some(3)]);
    assert_eq!(failing_pages(&path).unwrap(), [3]);
}

#[test]
fn pages_moved_copied_or_from_another_file_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (good, page) = written(&dir.path().join("a.sqlite"));
    // The same rows written again: the same bytes but for the file's value.
    let (other, _) = written(&dir.path().join("b.sqlite"));
    assert_eq!(good.len(), other.len());
    assert_ne!(file_value(&good[..page]), file_value(&other[..page]));
    let path = dir.path().join("moved.sqlite");
    let pages = good.len() / page;
    assert!(pages > 4, "{pages} pages");
    let at = |n: usize| n * page..(n + 1) * page;
    // Two leaf pages swapped.
    let mut b = good.clone();
    let (x, y) = (pages - 1, pages - 2);
    let px = good[at(x)].to_vec();
    b[at(x)].copy_from_slice(&good[at(y)]);
    b[at(y)].copy_from_slice(&px);
    assert!(refused_page(&path, &b).iter().all(Option::is_some));
    assert_eq!(failing_pages_of(&b, page), [y as u64 + 1, x as u64 + 1]);
    // One page copied over another.
    let mut b = good.clone();
    b[at(x)].copy_from_slice(&good[at(y)]);
    assert_eq!(refused_page(&path, &b), [Some(x as u64 + 1); 2]);
    // The same page of the other file (its content may even be the same).
    let mut b = good.clone();
    b[at(x)].copy_from_slice(&other[at(x)]);
    assert_eq!(refused_page(&path, &b), [Some(x as u64 + 1); 2]);
    // The other file's page 1: every other page is then held to its value.
    let mut b = good.clone();
    b[at(0)].copy_from_slice(&other[at(0)]);
    assert!(refused_page(&path, &b).iter().all(Option::is_some));
    assert_eq!(failing_pages_of(&b, page).len(), pages - 1);
}

#[test]
fn a_flip_in_the_header_byte_that_names_the_rule_is_damage() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let (good, page) = written(&path);
    for bit in 0..8 {
        let mut b = good.clone();
        b[20] ^= 1 << bit;
        assert_eq!(failing_pages_of(&b, page), [1], "bit {bit}");
        std::fs::write(&path, &b).unwrap();
        // Opening reads the header: refused as damage to page 1, or by SQLite
        // itself when the byte leaves too few usable bytes per page.
        let conn = rusqlite::Connection::open(&path).unwrap();
        let e = conn
            .query_row("SELECT count(*) FROM t", [], |r| r.get::<_, i64>(0))
            .unwrap_err();
        if is_damage(&e) {
            assert_eq!(damaged_page(), Some(1), "bit {bit}");
        }
    }
}

#[test]
fn files_of_the_previous_rule_are_read_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("legacy.sqlite");
    let (good, page) = written(&path);
    // The same pages under the previous rule: 8 reserved bytes, unbound sums.
    let mut b = good.clone();
    b[20] = LEGACY_RESERVED;
    for p in b.chunks_mut(page) {
        let n = page - 8;
        let s = sums(0, &p[..n]);
        p[n..].copy_from_slice(&s);
    }
    // Bytes n-16..n-8 are payload under that rule; only our rows' bytes matter.
    assert!(failing_pages_of(&b, page).is_empty());
    std::fs::write(&path, &b).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    assert_eq!(reserved(&conn).unwrap(), LEGACY_RESERVED as i32);
    drop(conn);
    b[3 * page + 100] ^= 1;
    assert_eq!(refused_page(&path, &b), [Some(4); 2]);
}

#[test]
fn a_rekeyed_copy_reads_as_its_own_file_and_a_damaged_page_stops_it() {
    let dir = tempfile::tempdir().unwrap();
    let from = dir.path().join("from.sqlite");
    let to = dir.path().join("to.sqlite");
    let (good, page) = written(&from);
    let Copied::Whole { pages, sha256 } = copy_rekeyed(&from, &to).unwrap() else {
        panic!("a sound file is copied whole")
    };
    assert_eq!(pages as usize, good.len() / page);
    assert_eq!(
        sha256,
        crate::integrity::sha256_file(&from).unwrap(),
        "the hash of the bytes read"
    );
    let copy = std::fs::read(&to).unwrap();
    assert_eq!(copy.len(), good.len());
    // A value of its own on every page, every page sound under it, the rest the same.
    let value = file_value(&copy[..page]);
    assert_ne!(value, file_value(&good[..page]));
    assert!(failing_pages_of(&copy, page).is_empty());
    for (a, b) in good.chunks(page).zip(copy.chunks(page)) {
        assert_eq!(a[..page - 16], b[..page - 16]);
        assert_eq!(file_value(b), value);
    }
    let conn = rusqlite::Connection::open(&to).unwrap();
    let n: i64 = conn
        .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 2000);
    drop(conn);
    // A page of the source swapped for one of the copy fails in neither file's favour.
    let mut mixed = copy.clone();
    mixed[2 * page..3 * page].copy_from_slice(&good[2 * page..3 * page]);
    assert_eq!(failing_pages_of(&mixed, page), [3]);

    // A flipped bit, and a file cut inside a page, are found and named.
    let mut bad = good.clone();
    bad[3 * page + 50] ^= 4;
    std::fs::write(&from, &bad).unwrap();
    assert_eq!(copy_rekeyed(&from, &to).unwrap(), Copied::Failing(vec![4]));
    std::fs::write(&from, &good[..good.len() - 100]).unwrap();
    let last = (good.len() / page) as u64;
    assert_eq!(
        copy_rekeyed(&from, &to).unwrap(),
        Copied::Failing(vec![last])
    );
    // A file of the previous rule is not copied.
    let mut legacy = good.clone();
    legacy[20] = LEGACY_RESERVED;
    std::fs::write(&from, &legacy).unwrap();
    assert_eq!(copy_rekeyed(&from, &to).unwrap(), Copied::OtherRule);
}

#[test]
fn the_lock_byte_page_is_the_one_at_one_gibibyte() {
    assert!(is_lock_page(262_145, 4096));
    assert!(is_lock_page(16_385, 65536));
    assert!(!is_lock_page(262_144, 4096) && !is_lock_page(1, 4096));
}
