//! Records the git commit the binary is built from, for the file's `meta` table (builds
//! without git, a source tarball or a missing `git` binary, simply leave it out). The
//! catalog's list of built-in definitions is written by `crates/puzzlebase-families`.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if let Some(commit) = git(&["rev-parse", "HEAD"]).filter(|c| c.len() >= 40) {
        println!("cargo:rustc-env=PUZZLEBASE_GIT_COMMIT={commit}");
    }
    // Rebuild when HEAD moves: HEAD itself (a branch switch) and the branch it names (a
    // commit). Only paths that exist are named, or Cargo would rerun this every build.
    let mut watched = vec![git(&["rev-parse", "--git-path", "HEAD"])];
    if let Some(branch) = git(&["rev-parse", "--symbolic-full-name", "HEAD"]) {
        watched.push(git(&["rev-parse", "--git-path", &branch]));
    }
    watched.push(git(&["rev-parse", "--git-path", "packed-refs"]));
    for path in watched.into_iter().flatten() {
        if std::path::Path::new(&path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}
