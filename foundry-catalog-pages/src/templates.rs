//! Where templates come from: the defaults compiled in, and a folder a
//! catalog team owns, read as an attacker would write it.

use std::path::{Path, PathBuf};

use crate::PageError;

/// The default templates, by name: the page layout, a product's page, the
/// home and list pages with the breadcrumbs, product lists, page numbers
/// and head (meta tags) they include, a taxonomy's page of terms and the
/// link to a term, the search page, the page for an unknown path, and
/// the stylesheet the layout inlines.
pub(crate) const DEFAULTS: [(&str, &str); 13] = [
    ("base.html", include_str!("../templates/base.html")),
    ("product.html", include_str!("../templates/product.html")),
    ("home.html", include_str!("../templates/home.html")),
    ("list.html", include_str!("../templates/list.html")),
    ("breadcrumbs.html", include_str!("../templates/breadcrumbs.html")),
    ("cards.html", include_str!("../templates/cards.html")),
    ("pagination.html", include_str!("../templates/pagination.html")),
    ("list_head.html", include_str!("../templates/list_head.html")),
    ("terms.html", include_str!("../templates/terms.html")),
    ("term.html", include_str!("../templates/term.html")),
    ("search.html", include_str!("../templates/search.html")),
    ("not_found.html", include_str!("../templates/not_found.html")),
    ("style.css", include_str!("../templates/style.css")),
];

/// The most bytes one template file may hold.
pub const MAX_TEMPLATE_LEN: u64 = 1024 * 1024;

/// The most files a templates folder may hold.
const MAX_FILES: usize = 256;

/// One template read from a folder.
pub(crate) struct TemplateFile {
    /// Its name in the environment (the file name).
    pub(crate) name: String,
    /// Its text.
    pub(crate) text: String,
    /// Where it was read from.
    pub(crate) path: PathBuf,
}

/// The templates of `dir`: every `*.html` and `*.css` file in it (not
/// in subfolders; hidden files are skipped). Each must be a regular file
/// (a link is refused, not followed), UTF-8, under [`MAX_TEMPLATE_LEN`]
/// bytes; anything else in the folder is an error, so a misnamed
/// template is not silently ignored.
pub(crate) fn read_dir(dir: &Path) -> Result<Vec<TemplateFile>, PageError> {
    let read_error = |file: &Path, reason: String| PageError::Read { file: file.to_owned(), reason };
    let entries = std::fs::read_dir(dir).map_err(|e| read_error(dir, e.to_string()))?;
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| read_error(dir, e.to_string()))?;
        let path = entry.path();
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            return Err(read_error(&path, "the file name is not UTF-8".to_owned()));
        };
        if name.starts_with('.') {
            continue;
        }
        if !(name.ends_with(".html") || name.ends_with(".css")) {
            return Err(read_error(
                &path,
                "not a template; hint: a templates folder holds .html and .css files only".to_owned(),
            ));
        }
        if files.len() == MAX_FILES {
            return Err(read_error(dir, format!("more than {MAX_FILES} templates")));
        }
        let text = read_template(&path).map_err(|reason| read_error(&path, reason))?;
        files.push(TemplateFile { name, text, path });
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(files)
}

/// One template file's text: a regular file (never through a link, never
/// waited on), within the size limit, UTF-8.
fn read_template(path: &Path) -> Result<String, String> {
    use std::io::Read;
    const NOT_REGULAR: &str = "not a regular file (links are not followed)";
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // The entry itself: a link is refused (ELOOP), a FIFO not waited on.
        let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
        options.custom_flags(flags.bits() as i32);
    }
    #[cfg(not(unix))]
    if std::fs::symlink_metadata(path).map_err(|e| e.to_string())?.file_type().is_symlink() {
        return Err(NOT_REGULAR.to_owned());
    }
    let file = options.open(path).map_err(|e| {
        if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            NOT_REGULAR.to_owned()
        } else {
            e.to_string()
        }
    })?;
    // What was opened, not what the name holds now.
    if !file.metadata().map_err(|e| e.to_string())?.is_file() {
        return Err(NOT_REGULAR.to_owned());
    }
    let mut bytes = Vec::new();
    // One byte past the limit tells a file that grew since it was opened.
    file.take(MAX_TEMPLATE_LEN + 1).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_TEMPLATE_LEN {
        return Err(format!("larger than {MAX_TEMPLATE_LEN} bytes"));
    }
    String::from_utf8(bytes)
        .map_err(|e| format!("not UTF-8 text: invalid byte at offset {}", e.utf8_error().valid_up_to()))
}
