//! The tier crate's folders import one way (ARCHITECTURE.md): `api` uses neither `engine`
//! nor `store`, and `store` does not use `engine`. Read from the crate's own sources.

use std::path::Path;

/// The `.rs` files below `dir`, with their text.
fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                out.push((p.display().to_string(), text));
            }
        }
    }
    out
}

#[test]
fn imports_flow_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for (folder, banned) in [
        ("api", &["crate::engine", "crate::store"][..]),
        ("store", &["crate::engine"][..]),
    ] {
        let files = sources(&src.join(folder));
        assert!(!files.is_empty(), "no sources in {folder}");
        for (file, text) in files {
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or_default();
                // A grouped import would hide the module it names from this test.
                assert!(
                    !code.contains("crate::{"),
                    "{file}:{}: a grouped import",
                    n + 1
                );
                for b in banned {
                    assert!(!code.contains(b), "{file}:{}: {folder} uses {b}", n + 1);
                }
            }
        }
    }
}
