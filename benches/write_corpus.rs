//! `write-corpus flat|rich TYPES DIR`: writes a side-by-side corpus as a
//! downstream crate holds it: `DIR/record-types/<label>.json` (ours) and
//! `DIR/schema.json` (the same shapes for typify). `benches/rustc.sh`
//! builds crates from them.

use std::process::ExitCode;

use foundry_catalog_benches::Corpus;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (corpus, types, dir) = match args.as_slice() {
        [corpus, types, dir] => {
            let corpus = match corpus.as_str() {
                "flat" => Corpus::Flat,
                "rich" => Corpus::Rich,
                _ => return usage(),
            };
            let Ok(types) = types.parse::<usize>() else { return usage() };
            (corpus, types, std::path::PathBuf::from(dir))
        }
        _ => return usage(),
    };
    let definitions = dir.join("record-types");
    let written = std::fs::create_dir_all(&definitions).and_then(|()| {
        for source in corpus.sources(types) {
            let name = source.path.rsplit('/').next().unwrap_or(&source.path);
            std::fs::write(definitions.join(name), &source.bytes)?;
        }
        std::fs::write(dir.join("schema.json"), corpus.json_schema(types))
    });
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}: {e}", dir.display());
            ExitCode::FAILURE
        }
    }
}

fn usage() -> ExitCode {
    eprintln!("usage: write-corpus flat|rich TYPES DIR");
    ExitCode::from(2)
}
