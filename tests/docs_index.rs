//! docs/README.md, the documentation index, links every document in docs/ (a new
//! topic must be listed there) and every link in it resolves.

use std::path::Path;

#[test]
fn index_links_every_doc_and_every_link_resolves() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
    let index = std::fs::read_to_string(docs.join("README.md")).unwrap();
    for e in std::fs::read_dir(&docs).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".md") && name != "README.md" {
            assert!(
                index.contains(&format!("]({name})")),
                "docs/README.md does not link docs/{name}"
            );
        }
    }
    let mut links = 0;
    for part in index.split("](").skip(1) {
        let target = part.split(')').next().unwrap();
        assert!(
            docs.join(target).exists(),
            "broken link in docs/README.md: {target}"
        );
        links += 1;
    }
    assert!(links >= 7, "{links} links");
}
