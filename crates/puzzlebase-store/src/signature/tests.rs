//! Tests of signing and checking: a signed file verifies and any changed byte is refused,
//! keys and passwords, malformed keys and signatures refused in one line, repairs and
//! temporaries.

use super::*;

fn pair(dir: &Path, name: &str, password: Option<&str>) -> (PathBuf, PathBuf) {
    let (p, s) = (
        dir.join(format!("{name}.pub")),
        dir.join(format!("{name}.key")),
    );
    generate_keypair(&p, &s, password.map(str::to_string)).unwrap();
    (p, s)
}

#[test]
fn a_signed_file_verifies_and_any_changed_byte_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (public, secret) = pair(d, "k", None);
    let file = d.join("f.sqlite");
    let bytes: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
    fs::write(&file, &bytes).unwrap();
    let key = load_secret_key(&secret, None).unwrap();
    let comment = trusted_comment("f.sqlite", "2026-11-26T06:30:47Z");
    let text = sign_file(&file, &key, &comment).unwrap();
    assert_eq!(text.lines().count(), 4, "{text}");
    let sig = signature_path(&file);
    assert_eq!(sig, d.join("f.sqlite.minisig"));
    fs::write(&sig, &text).unwrap();
    let ok = verify_file(&file, &sig, &public).unwrap();
    assert_eq!(ok.trusted_comment, comment);
    assert_eq!(ok.key_id, key.key_id());
    for at in [0, 1, 100, 65_535, 65_536, 131_072, bytes.len() - 1] {
        let mut changed = bytes.clone();
        changed[at] ^= 0x01;
        fs::write(&file, &changed).unwrap();
        assert!(
            matches!(
                verify_file(&file, &sig, &public),
                Err(SignatureError::BadSignature { .. })
            ),
            "byte {at}"
        );
    }
    fs::write(&file, &bytes[..bytes.len() - 1]).unwrap();
    assert!(verify_file(&file, &sig, &public).is_err());
    fs::write(&file, [&bytes[..], b"x"].concat()).unwrap();
    assert!(verify_file(&file, &sig, &public).is_err());
    fs::write(&file, &bytes).unwrap();
    assert!(verify_file(&file, &sig, &public).is_ok());
}

#[test]
fn another_keys_signature_names_both_key_ids() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (_, secret) = pair(d, "a", None);
    let (other, _) = pair(d, "b", None);
    let file = d.join("f");
    fs::write(&file, b"data").unwrap();
    let key = load_secret_key(&secret, None).unwrap();
    let sig = d.join("f.minisig");
    fs::write(&sig, sign_file(&file, &key, "c").unwrap()).unwrap();
    let e = verify_file(&file, &sig, &other).unwrap_err();
    assert!(matches!(e, SignatureError::OtherKey { .. }), "{e}");
    assert!(e.to_string().contains(&key.key_id()), "{e}");
}

#[test]
fn encrypted_keys_need_their_password() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (public, secret) = pair(d, "e", Some("correct horse"));
    assert!(fs::read_to_string(&secret).unwrap().contains("encrypted"));
    let e = load_secret_key(&secret, None).unwrap_err();
    assert!(matches!(e, SignatureError::NeedsPassword(_)), "{e}");
    assert!(e.to_string().contains(PASSWORD_VAR), "{e}");
    let e = load_secret_key(&secret, Some("wrong".into())).unwrap_err();
    assert!(matches!(e, SignatureError::WrongPassword(_)), "{e}");
    let key = load_secret_key(&secret, Some("correct horse".into())).unwrap();
    let file = d.join("f");
    fs::write(&file, b"data").unwrap();
    fs::write(d.join("f.minisig"), sign_file(&file, &key, "c").unwrap()).unwrap();
    verify_file(&file, &d.join("f.minisig"), &public).unwrap();
    assert!(!format!("{key:?}").contains(&format!("{:?}", key.secret)));
}

#[test]
fn keygen_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (public, secret) = pair(d, "k", None);
    let before = (fs::read(&public).unwrap(), fs::read(&secret).unwrap());
    let again = generate_keypair(&public, &d.join("new.key"), None).unwrap_err();
    assert!(matches!(again, SignatureError::Exists(_)), "{again}");
    assert!(!d.join("new.key").exists());
    let again = generate_keypair(&d.join("new.pub"), &secret, None).unwrap_err();
    assert!(matches!(again, SignatureError::Exists(_)), "{again}");
    assert!(!d.join("new.pub").exists());
    assert_eq!(
        before,
        (fs::read(&public).unwrap(), fs::read(&secret).unwrap())
    );
    let same = generate_keypair(&d.join("x"), &d.join("x"), None).unwrap_err();
    assert!(matches!(same, SignatureError::SamePath(_)), "{same}");
    let empty = generate_keypair(&d.join("y.pub"), &d.join("y.key"), Some(String::new()));
    assert!(matches!(empty, Err(SignatureError::EmptyPassword)));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&secret).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "the secret key is its owner's only");
    }
}

#[test]
fn malformed_keys_and_signatures_are_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (public, secret) = pair(d, "k", None);
    let file = d.join("f");
    fs::write(&file, b"data").unwrap();
    let key = load_secret_key(&secret, None).unwrap();
    let good = sign_file(&file, &key, "c").unwrap();
    let sig = d.join("f.minisig");
    let check = |text: &str| {
        fs::write(&sig, text).unwrap();
        verify_file(&file, &sig, &public)
    };
    let lines: Vec<&str> = good.lines().collect();
    let mut bad = vec![
        String::new(),
        "hello".to_string(),
        lines[..3].join("\n"),
        format!(
            "{}\n{}\n{}\n{}",
            lines[0],
            lines[1],
            lines[2],
            &lines[3][..40]
        ),
        format!(
            "{}\n{}\n{}\n{}",
            lines[0],
            &lines[1][..50],
            lines[2],
            lines[3]
        ),
        format!("{}\n{}\nno prefix\n{}", lines[0], lines[1], lines[3]),
        good.replace("untrusted comment:", "comment:"),
    ];
    bad.push(String::from_utf8_lossy(&[0xff; 300]).to_string());
    for text in &bad {
        let e = check(text).unwrap_err();
        assert!(
            matches!(e, SignatureError::NotSignature(_)),
            "{text:?}: {e}"
        );
    }
    fs::write(&sig, [0xffu8, 0xfe, 0x00]).unwrap();
    assert!(matches!(
        verify_file(&file, &sig, &public),
        Err(SignatureError::NotSignature(_))
    ));
    // A changed trusted comment fails the global signature.
    fs::write(
        &sig,
        good.replace("trusted comment: c", "trusted comment: d"),
    )
    .unwrap();
    assert!(matches!(
        verify_file(&file, &sig, &public),
        Err(SignatureError::BadSignature { .. })
    ));
    fs::remove_file(&sig).unwrap();
    assert!(matches!(
        verify_file(&file, &sig, &public),
        Err(SignatureError::MissingSignature(_))
    ));
    // Keys swapped, missing, a directory, damaged.
    assert!(matches!(
        load_secret_key(&public, None),
        Err(SignatureError::NotSecretKey(_))
    ));
    assert!(matches!(
        load_public_key(&secret),
        Err(SignatureError::NotPublicKey(_))
    ));
    assert!(matches!(
        load_public_key(&d.join("none.pub")),
        Err(SignatureError::MissingKey(_))
    ));
    assert!(matches!(
        load_secret_key(d, None),
        Err(SignatureError::NotSecretKey(_))
    ));
    let text = fs::read_to_string(&secret).unwrap();
    let mut chars: Vec<char> = text.chars().collect();
    // A byte of the Ed25519 secret key (bytes 62 to 125 of the decoded line).
    let at = text.find('\n').unwrap() + 1 + 100;
    chars[at] = if chars[at] == 'A' { 'B' } else { 'A' };
    let damaged = d.join("damaged.key");
    fs::write(&damaged, chars.into_iter().collect::<String>()).unwrap();
    assert!(matches!(
        load_secret_key(&damaged, None),
        Err(SignatureError::NotSecretKey(_))
    ));
    for e in [
        SignatureError::NotSignature("x".into()),
        SignatureError::MissingKey("x".into()),
    ] {
        assert_eq!(e.to_string().lines().count(), 1);
    }
}

#[test]
fn repair_signs_only_when_the_signature_does_not_hold() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (_, secret) = pair(d, "k", None);
    let key = load_secret_key(&secret, None).unwrap();
    let file = d.join("f");
    fs::write(&file, b"data").unwrap();
    assert!(repair(&file, &key, "first").unwrap());
    let first = fs::read(signature_path(&file)).unwrap();
    assert!(!repair(&file, &key, "second").unwrap());
    assert_eq!(fs::read(signature_path(&file)).unwrap(), first);
    fs::write(&file, b"datb").unwrap();
    assert!(repair(&file, &key, "third").unwrap());
    assert!(!repair(&d.join("none"), &key, "x").unwrap());
    let names: Vec<_> = fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        names.iter().all(|n| !n.to_string_lossy().contains(".tmp-")),
        "{names:?}"
    );
}

#[test]
fn signature_temporaries_are_recognised() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("empty"), b"").unwrap();
    fs::write(d.join("sig"), b"untrusted comment: x\n").unwrap();
    fs::write(d.join("notes"), b"my notes").unwrap();
    assert!(is_signature_text(&d.join("empty")));
    assert!(is_signature_text(&d.join("sig")));
    assert!(!is_signature_text(&d.join("notes")));
    assert!(!is_signature_text(&d.join("absent")));
    assert!(!is_signature_text(d));
}
