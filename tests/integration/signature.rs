//! Signed files: `keygen`, `generate --sign`, `verify --key`, and Debian's `minisign`
//! on the same files and keys (those parts say "skipped" where `minisign` is not on
//! PATH; `.ci/run` installs it).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::util::{assert_clean_failure, assert_no_temporaries};

const PASSWORD_VAR: &str = "PUZZLEBASE_KEY_PASSWORD";

/// Runs the binary with `args`, with `password` (or none) in [`PASSWORD_VAR`] and no
/// PUZZLEBASE_DB, its standard input closed.
fn run_with(args: &[&str], password: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_puzzlebase"));
    cmd.args(args)
        .env_remove("PUZZLEBASE_DB")
        .env_remove(PASSWORD_VAR)
        .stdin(Stdio::null());
    if let Some(p) = password {
        cmd.env(PASSWORD_VAR, p);
    }
    cmd.output().unwrap()
}

fn run(args: &[&str]) -> Output {
    run_with(args, None)
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).to_string()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A key pair made by `keygen` in `dir`: (public, secret).
fn keygen(dir: &Path, name: &str, password: Option<&str>) -> (PathBuf, PathBuf) {
    let (public, secret) = (
        dir.join(format!("{name}.pub")),
        dir.join(format!("{name}.key")),
    );
    ok(&run_with(
        &["keygen", "--public", s(&public), "--secret", s(&secret)],
        password,
    ));
    (public, secret)
}

/// `generate --puzzle seven --sign KEY` into `db`, quietly.
fn generate_signed(db: &Path, key: &Path, password: Option<&str>) -> Output {
    run_with(
        &[
            "generate",
            "-q",
            "--db",
            s(db),
            "--puzzle",
            "seven",
            "--sign",
            s(key),
        ],
        password,
    )
}

fn verify_key(db: &Path, public: &Path) -> Output {
    run(&["verify", "--db", s(db), "--key", s(public)])
}

/// Whether Debian's `minisign` is on PATH; says so when it is not.
fn minisign_present() -> bool {
    let there = Command::new("minisign")
        .arg("-v")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !there {
        eprintln!("skipped: the minisign checks (no `minisign` on PATH; apt-get install minisign)");
    }
    there
}

/// `minisign ARGS`, with nothing on its standard input (it never waits for a password).
fn minisign(args: &[&str]) -> Output {
    Command::new("minisign")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// `minisign ARGS`, which must succeed.
fn minisign_ok(args: &[&str]) {
    let o = minisign(args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `minisign -Vm FILE -p PUBLIC` (the signature at FILE.minisig): whether it accepts.
fn minisign_accepts(file: &Path, public: &Path) -> bool {
    minisign(&["-Vm", s(file), "-p", s(public)])
        .status
        .success()
}

/// A small generator for the positions of the changed bytes, seeded so that a failure
/// names the same byte every run.
struct XorShift(u64);
impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Refused by `verify --key` with the signature's one-line message (and by `minisign
/// -V` when it is there).
fn assert_refused(db: &Path, public: &Path, minisign: bool, what: &str) {
    let err = assert_clean_failure(&verify_key(db, public), 1);
    assert!(
        err.contains("verify: signature:") && err.contains("does not match its signature"),
        "{what}: {err}"
    );
    if minisign {
        assert!(!minisign_accepts(db, public), "minisign accepts {what}");
    }
}

#[test]
fn keygen_writes_a_key_pair_and_never_overwrites_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (public, secret) = keygen(d, "k", None);
    let pub_text = fs::read_to_string(&public).unwrap();
    let sec_text = fs::read_to_string(&secret).unwrap();
    assert!(
        pub_text.starts_with("untrusted comment: minisign public key"),
        "{pub_text}"
    );
    assert_eq!(pub_text.lines().count(), 2);
    assert!(!sec_text.contains("encrypted"), "{sec_text}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&secret).unwrap().permissions().mode();
        assert_eq!(
            mode & 0o077,
            0,
            "the secret key is readable by its owner only"
        );
    }
    // Neither file is overwritten, and nothing is left of a refused pair.
    for (p, sk) in [
        (&public, d.join("new.key")),
        (&d.join("new.pub"), secret.clone()),
    ] {
        let err = assert_clean_failure(&run(&["keygen", "--public", s(p), "--secret", s(&sk)]), 1);
        assert!(err.contains("already exists"), "{err}");
    }
    assert!(!d.join("new.key").exists() && !d.join("new.pub").exists());
    assert_eq!(fs::read_to_string(&public).unwrap(), pub_text);
    assert_eq!(fs::read_to_string(&secret).unwrap(), sec_text);
    // With a password in the environment, the secret key is encrypted with it.
    let (_, encrypted) = keygen(d, "e", Some("a passphrase"));
    assert!(
        fs::read_to_string(&encrypted)
            .unwrap()
            .contains("encrypted")
    );
    let err = assert_clean_failure(
        &run_with(
            &[
                "keygen",
                "--public",
                s(&d.join("x.pub")),
                "--secret",
                s(&d.join("x.key")),
            ],
            Some(""),
        ),
        1,
    );
    assert!(err.contains(PASSWORD_VAR), "{err}");
    // The subcommand is in the help, the completions and the manual.
    let help = ok(&run(&["keygen", "--help"]));
    assert!(
        help.contains("--public") && help.contains(PASSWORD_VAR),
        "{help}"
    );
    assert!(ok(&run(&["completions", "bash"])).contains("keygen"));
    assert!(ok(&run(&["man"])).contains("keygen"));
}

#[test]
fn a_signed_file_verifies_and_every_one_byte_change_is_refused() {
    let minisign = minisign_present();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (public, secret) = keygen(d, "k", None);
    let db = d.join("p.sqlite");
    ok(&generate_signed(&db, &secret, None));
    let sig = d.join("p.sqlite.minisig");
    let text = fs::read_to_string(&sig).unwrap();
    assert_eq!(text.lines().count(), 4, "{text}");
    assert!(
        text.lines()
            .nth(2)
            .unwrap()
            .starts_with("trusted comment: puzzlebase ")
            && text.contains("file:p.sqlite created_at:"),
        "{text}"
    );
    assert_no_temporaries(d);

    let out = ok(&verify_key(&db, &public));
    let first = out.lines().next().unwrap();
    assert!(
        first.starts_with("signature") && first.contains(" ok "),
        "{out}"
    );
    assert!(out.lines().any(|l| l.starts_with("seven")), "{out}");
    if minisign {
        assert!(minisign_accepts(&db, &public));
    }

    let original = fs::read(&db).unwrap();
    let len = original.len();
    assert!(len > 3 * 4096, "several pages: {len}");
    // The header, the first page's end, a middle page, the last byte, and positions
    // drawn from a seeded generator over the whole file: 20 in all.
    let mut at = vec![0, 18, 60, 99, 4095, len / 2, len - 1];
    let mut rng = XorShift(0x5EED_2026_0034);
    while at.len() < 20 {
        at.push((rng.next() % len as u64) as usize);
    }
    for &i in &at {
        let mut changed = original.clone();
        changed[i] ^= 1 + (rng.next() % 255) as u8;
        fs::write(&db, &changed).unwrap();
        assert_refused(&db, &public, minisign, &format!("byte {i} changed"));
    }
    let mut longer = original.clone();
    longer.push(0);
    fs::write(&db, &longer).unwrap();
    assert_refused(&db, &public, minisign, "one byte appended");
    fs::write(&db, &original[..len - 1]).unwrap();
    assert_refused(&db, &public, minisign, "the last byte removed");
    fs::write(&db, &original).unwrap();
    ok(&verify_key(&db, &public));
    if minisign {
        assert!(minisign_accepts(&db, &public));
    }

    // The signature itself: its trusted comment changed, or missing.
    fs::write(&sig, text.replace("file:p.sqlite", "file:q.sqlite")).unwrap();
    assert_refused(&db, &public, minisign, "a changed trusted comment");
    fs::remove_file(&sig).unwrap();
    let err = assert_clean_failure(&verify_key(&db, &public), 1);
    assert!(
        err.contains("no signature file at") && err.contains("p.sqlite.minisig"),
        "{err}"
    );
    // --signature names another file.
    let elsewhere = d.join("elsewhere.sig");
    fs::write(&elsewhere, &text).unwrap();
    ok(&run(&[
        "verify",
        "--db",
        s(&db),
        "--key",
        s(&public),
        "--signature",
        s(&elsewhere),
    ]));
}

#[test]
fn verify_json_reports_the_signature_first() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (public, secret) = keygen(d, "k", None);
    let db = d.join("p.sqlite");
    ok(&generate_signed(&db, &secret, None));
    let out = ok(&run(&[
        "verify",
        "--db",
        s(&db),
        "--key",
        s(&public),
        "--json",
    ]));
    let first: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(first["ok"], true, "{out}");
    assert!(
        first["signature"]
            .as_str()
            .unwrap()
            .ends_with("p.sqlite.minisig")
    );
    assert_eq!(first["key_id"].as_str().unwrap().len(), 16);
    assert!(
        first["trusted_comment"]
            .as_str()
            .unwrap()
            .contains("file:p.sqlite")
    );

    let mut bytes = fs::read(&db).unwrap();
    bytes[100] ^= 0x80;
    fs::write(&db, &bytes).unwrap();
    let o = run(&["verify", "--db", s(&db), "--key", s(&public), "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.lines().count(), 1, "only the signature's object: {out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["ok"], false);
    assert!(
        v["error"].as_str().unwrap().contains("does not match"),
        "{v}"
    );
    assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 1);
}

#[test]
fn a_signature_by_another_key_is_refused() {
    let minisign = minisign_present();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (_, secret) = keygen(d, "a", None);
    let (other, _) = keygen(d, "b", None);
    let db = d.join("p.sqlite");
    ok(&generate_signed(&db, &secret, None));
    let err = assert_clean_failure(&verify_key(&db, &other), 1);
    assert!(
        err.contains("was made by key") && err.contains("b.pub") && err.contains("another key"),
        "{err}"
    );
    if minisign {
        assert!(!minisign_accepts(&db, &other));
    }
    // A key that is not a public key at all.
    let err = assert_clean_failure(&verify_key(&db, &secret), 1);
    assert!(err.contains("is not a minisign public key"), "{err}");
    let err = assert_clean_failure(&verify_key(&db, &d.join("none.pub")), 1);
    assert!(err.contains("no key file at"), "{err}");
}

/// No database, lock or temporary beside it: the run stopped before it began.
fn assert_untouched(dir: &Path) {
    let names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with("p.sqlite"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

#[cfg(unix)]
#[test]
fn through_a_link_the_signature_is_beside_the_target() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (public, secret) = keygen(d, "k", None);
    fs::create_dir(d.join("real")).unwrap();
    let link = d.join("current.sqlite");
    std::os::unix::fs::symlink("real/p.sqlite", &link).unwrap();
    ok(&generate_signed(&link, &secret, None));
    assert!(d.join("real/p.sqlite.minisig").is_file());
    assert!(!d.join("current.sqlite.minisig").exists());
    let out = ok(&verify_key(&link, &public));
    assert!(out.contains("file:p.sqlite"), "{out}");
}

#[test]
fn a_key_that_cannot_sign_is_refused_before_anything_is_built() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (public, secret) = keygen(d, "e", Some("a passphrase"));
    let db = d.join("p.sqlite");
    let err = assert_clean_failure(&generate_signed(&db, &secret, None), 1);
    assert!(
        err.contains("password-protected") && err.contains(PASSWORD_VAR),
        "{err}"
    );
    assert_untouched(d);
    let err = assert_clean_failure(&generate_signed(&db, &secret, Some("wrong")), 1);
    assert!(err.contains("wrong password"), "{err}");
    assert_untouched(d);
    let err = assert_clean_failure(&generate_signed(&db, &public, None), 1);
    assert!(err.contains("is not a minisign secret key"), "{err}");
    let err = assert_clean_failure(&generate_signed(&db, &d.join("none.key"), None), 1);
    assert!(
        err.contains("no key file at") && err.contains("none.key"),
        "{err}"
    );
    let err = assert_clean_failure(&generate_signed(&db, d, None), 1);
    assert!(err.contains("is not a minisign secret key"), "{err}");
    assert_untouched(d);
    // With its password the encrypted key signs.
    ok(&generate_signed(&db, &secret, Some("a passphrase")));
    ok(&verify_key(&db, &public));
}

#[test]
fn an_unchanged_file_is_signed_again_only_when_its_signature_does_not_hold() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (public, secret) = keygen(d, "a", None);
    let (other_public, other_secret) = keygen(d, "b", None);
    let db = d.join("p.sqlite");
    let sig = d.join("p.sqlite.minisig");
    ok(&generate_signed(&db, &secret, None));
    let (file, signed) = (fs::read(&db).unwrap(), fs::read(&sig).unwrap());
    // Nothing to build: the file and its signature stay exactly as they are.
    ok(&generate_signed(&db, &secret, None));
    assert_eq!(fs::read(&db).unwrap(), file);
    assert_eq!(fs::read(&sig).unwrap(), signed);
    // A missing signature is written for the file as it is.
    fs::remove_file(&sig).unwrap();
    let out = ok(&run(&[
        "generate",
        "--db",
        s(&db),
        "--puzzle",
        "seven",
        "--sign",
        s(&secret),
    ]));
    assert!(
        out.contains("signed ") && out.contains("p.sqlite.minisig"),
        "{out}"
    );
    assert_eq!(fs::read(&db).unwrap(), file);
    ok(&verify_key(&db, &public));
    // Another key: signed again with it.
    ok(&generate_signed(&db, &other_secret, None));
    assert_eq!(fs::read(&db).unwrap(), file);
    ok(&verify_key(&db, &other_public));
    assert_clean_failure(&verify_key(&db, &public), 1);
    // A new file without --sign: the old signature is removed, and the run says so.
    let o = run(&[
        "generate",
        "-q",
        "--db",
        s(&db),
        "--puzzle",
        "seven",
        "--force",
    ]);
    ok(&o);
    assert!(!sig.exists());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("removed") && err.contains("p.sqlite.minisig"),
        "{err}"
    );
    // --json says what it signed.
    let out = ok(&run(&[
        "generate",
        "--json",
        "--db",
        s(&db),
        "--puzzle",
        "seven",
        "--sign",
        s(&secret),
    ]));
    let last: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert!(
        last["signed"]
            .as_str()
            .unwrap()
            .ends_with("p.sqlite.minisig"),
        "{out}"
    );
    ok(&verify_key(&db, &public));
    assert_no_temporaries(d);
}

#[test]
fn leftover_signature_temporaries_are_removed_and_a_users_files_kept() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (_, secret) = keygen(d, "k", None);
    let db = d.join("p.sqlite");
    fs::write(
        d.join("p.sqlite.minisig.tmp-99999"),
        b"untrusted comment: x\n",
    )
    .unwrap();
    fs::write(d.join("p.sqlite.minisig.tmp-99998"), b"").unwrap();
    fs::write(d.join("p.sqlite.minisig.tmp-99997"), b"a user's notes").unwrap();
    fs::write(
        d.join("p.sqlite.minisig.tmp-old"),
        b"untrusted comment: x\n",
    )
    .unwrap();
    ok(&generate_signed(&db, &secret, None));
    assert!(!d.join("p.sqlite.minisig.tmp-99999").exists());
    assert!(!d.join("p.sqlite.minisig.tmp-99998").exists());
    assert!(d.join("p.sqlite.minisig.tmp-99997").exists());
    assert!(d.join("p.sqlite.minisig.tmp-old").exists());
}

#[test]
fn minisign_keys_and_signatures_work_with_puzzlebase() {
    if !minisign_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (public, secret) = (d.join("m.pub"), d.join("m.key"));
    minisign_ok(&["-G", "-W", "-p", s(&public), "-s", s(&secret)]);
    let db = d.join("p.sqlite");
    ok(&generate_signed(&db, &secret, None));
    assert!(minisign_accepts(&db, &public));
    ok(&verify_key(&db, &public));
    // A signature minisign makes is one `verify --key` reads.
    let theirs = d.join("theirs.minisig");
    minisign_ok(&["-S", "-m", s(&db), "-s", s(&secret), "-x", s(&theirs)]);
    let out = ok(&run(&[
        "verify",
        "--db",
        s(&db),
        "--key",
        s(&public),
        "--signature",
        s(&theirs),
    ]));
    assert!(out.contains("file:p.sqlite"), "{out}");
    // ... and `keygen`'s public key is one minisign reads.
    let (ours_public, ours_secret) = keygen(d, "ours", None);
    ok(&generate_signed(&db, &ours_secret, None));
    assert!(minisign_accepts(&db, &ours_public));
    assert!(!minisign_accepts(&db, &public));
}

/// `query --key` and `serve --key`: answers only from the file its signature signed
/// with that key; a changed byte, another key or a missing signature is refused, and a
/// server refuses from the first lookup after the file changed under it.
#[test]
fn readers_given_a_key_answer_only_from_the_signed_file() {
    let dir = tempfile::tempdir().unwrap();
    let (public, secret) = keygen(dir.path(), "k", None);
    let (other, _) = keygen(dir.path(), "other", None);
    let db = dir.path().join("p.sqlite");
    ok(&generate_signed(&db, &secret, None));
    let ask = |key: &Path| {
        run(&[
            "query",
            "--db",
            s(&db),
            "--puzzle",
            "seven",
            "--longest",
            "--key",
            s(key),
        ])
    };
    let answer = ok(&ask(&public));
    let plain = ok(&run(&[
        "query",
        "--db",
        s(&db),
        "--puzzle",
        "seven",
        "--longest",
    ]));
    assert_eq!(answer, plain);
    let err = assert_clean_failure(&ask(&other), 1);
    assert!(err.contains("key"), "{err}");

    // The server starts only with the right key, and refuses once the file changes.
    let opts = |key: &Path| puzzlebase_cli::server::ServeOptions {
        key: Some((key.to_path_buf(), None)),
        ..Default::default()
    };
    assert!(puzzlebase_cli::server::router_with(&db, opts(&other)).is_err());
    let addr =
        crate::serve::start_server_with(&db, puzzlebase_cli::server::HEADER_TIMEOUT, opts(&public));
    let (status, _, _) = crate::serve::raw_at(addr, b"/api/puzzles/seven", "GET");
    assert_eq!(status, 200);
    // One byte of the last page, in place: the file is no longer the one signed.
    let bytes = fs::read(&db).unwrap();
    let at = bytes.len() - 20;
    let mut changed = bytes.clone();
    changed[at] ^= 1;
    fs::write(&db, &changed).unwrap();
    let (status, _, body) = crate::serve::raw_at(addr, b"/api/puzzles/seven", "GET");
    assert_ne!(status, 200, "{}", String::from_utf8_lossy(&body));
    let err = assert_clean_failure(&ask(&public), 1);
    assert!(err.contains("signature"), "{err}");
    // Put back, it is answered from again.
    fs::write(&db, &bytes).unwrap();
    let (status, _, _) = crate::serve::raw_at(addr, b"/api/puzzles/seven", "GET");
    assert_eq!(status, 200);
    ok(&ask(&public));
}
