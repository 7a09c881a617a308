//! Writing an artifact: assembled from a build's entries and buffers,
//! then written as a file.

use std::io::Write;
use std::sync::Arc;

use bytes::Bytes;
use sha2::{Digest, Sha256};

use super::header::crc32;
use super::index::Index;
use super::layout::{FORMAT_VERSION, MAGIC, REGIONS};
#[cfg(feature = "signing")]
use super::signed_message;
use super::{Artifact, ArtifactError, Bodies, BodyFile, Contents, DocumentEntry, Metadata, Piece, SitePages};
use super::{contiguous, head};

/// One part of an artifact file, as [`Artifact::write_parts`] hands it out.
pub(crate) enum Part<'a> {
    /// The header, metadata, signature or index.
    Head(&'a [u8]),
    /// A data buffer.
    Data(&'a Bytes),
    /// A range of another artifact file's data region.
    File(&'a BodyFile, u64, u64),
}

impl Artifact {
    /// Assembles an artifact from its products' index entries as stored
    /// (`products` of them, [`head::store_product`]'s bytes: lengths,
    /// with pages when `pages` is given, as every entry then is; in runs,
    /// one a building thread, joined here into one index of its exact
    /// size, each run freed once copied), the
    /// site documents and the data buffers they point into (spans count
    /// from the start of the first buffer): the first `table` bytes of the
    /// buffers hold every slug, date, ETag, path and name, the rest every
    /// body (no buffer holds both), each entry's in one run of each, in
    /// index order. The products' runs are placed from their lengths; the
    /// documents' spans must be where those lengths place them, an error
    /// when they are not (a builder's bug, never a file written).
    pub(crate) fn new(
        contents: Contents,
        products: (Vec<Vec<u8>>, usize),
        documents: &[DocumentEntry],
        buffers: Vec<Piece>,
        table: u64,
    ) -> Result<Artifact, ArtifactError> {
        let Contents { generator, codings, record_types, renderer_sha256, release, pages } = contents;
        let (runs, products) = products;
        // Made at its size, not grown by doubling as it is joined (which
        // takes up to twice the room, and copies it on the way).
        let len = runs.iter().map(Vec::len).sum::<usize>() + documents.len() * head::document_len(codings.len());
        let mut stored_index = Vec::with_capacity(len);
        for run in runs {
            stored_index.extend_from_slice(&run);
        }
        head::store_documents(documents, &mut stored_index);
        let mut start = 0;
        let data = buffers
            .into_iter()
            .map(|buffer| {
                let at = start;
                start += buffer.len();
                (at, buffer)
            })
            .collect();
        let mut artifact = Artifact {
            metadata: Metadata {
                generator,
                products: products as u64,
                codings,
                record_types,
                content_sha256: String::new(),
                directory_sha256: String::new(),
                renderer_sha256: Some(renderer_sha256),
                sequence: release.sequence,
                expires: release.expires,
                pages: pages.map(|(digest, site)| SitePages { digest, site, documents: documents.len() as u64 }),
            },
            metadata_json: Bytes::new(),
            signature: None,
            index: Index::Whole { stored: Bytes::from(stored_index), starts: Arc::new([]) },
            blocks: Bytes::new(),
            directory: Bytes::new(),
            data,
            data_len: start,
            table,
            bodies: Bodies::Built,
            bodies_checked: Arc::new(true.into()),
            blocks_checked: Arc::new(true.into()),
            forms_trusted: Arc::default(),
        };
        let Index::Whole { stored, starts } = &mut artifact.index else { unreachable!("made whole above") };
        *starts = head::load(stored, &artifact.metadata, table, start)?.into();
        // Each document's spans as placed from the stored lengths: the
        // tiling (the builder checks its products' as it places them).
        if !artifact.documents().eq(documents.iter().cloned()) {
            return Err(ArtifactError::Malformed("the builder's spans are not tiled in index order".to_owned()));
        }
        // The content digest is one hash over every entry: it is taken on
        // a core of its own while the block list and directory are made.
        let (content_sha256, (blocks, directory)) =
            crate::parallel::join(|| artifact.content_digest(), || artifact.block_list(documents, products));
        artifact.metadata.content_sha256 = content_sha256;
        artifact.metadata.directory_sha256 = hex::encode(Sha256::digest(&directory));
        (artifact.blocks, artifact.directory) = (Bytes::from(blocks), Bytes::from(directory));
        // A struct of strings and numbers always serializes.
        artifact.metadata_json = serde_json::to_vec(&artifact.metadata).unwrap_or_default().into();
        Ok(artifact)
    }

    /// The block list and slug directory of an artifact [`Artifact::new`]
    /// made whole, whose site documents are `documents`.
    fn block_list(&self, documents: &[DocumentEntry], products: usize) -> (Vec<u8>, Vec<u8>) {
        let entries = products + documents.len();
        let (mut names, mut runs, mut bodies) =
            (Vec::with_capacity(entries), Vec::with_capacity(entries), Vec::with_capacity(entries));
        for entry in self.entries() {
            names.push(entry.slug);
            runs.push(contiguous(entry.table_spans()));
            bodies.push(contiguous(entry.body_spans()));
        }
        for document in documents {
            names.push(document.path);
            runs.push(contiguous(document.table_spans()));
            bodies.push(contiguous(document.body_spans()));
        }
        // Each name's key ([`head::key_of`]) places its block's end and
        // its slug in the directory: taken once, on all cores.
        let keys = crate::parallel::map(&names, |&span| head::key_of(self.bytes_of(span).unwrap_or_default()));
        let [runs, bodies]: [Vec<(u64, u64)>; 2] =
            [runs, bodies].map(|runs| runs.into_iter().map(Option::unwrap_or_default).collect());
        let Index::Whole { stored, .. } = &self.index else { unreachable!("an artifact being made is whole") };
        let blocks =
            head::list(stored, &keys, [&runs, &bodies], &self.metadata, &|at, len, f| self.table_bytes(at, len, f));
        let directory = head::directory_of_keys(keys[..products].iter().copied());
        (blocks, directory)
    }

    /// Writes the artifact file: header, metadata, signature, block list,
    /// slug directory, index, table and bodies.
    pub fn write_to(&self, mut out: impl Write) -> std::io::Result<()> {
        self.write_parts(|part| match part {
            Part::Head(bytes) => out.write_all(bytes),
            Part::Data(bytes) => out.write_all(bytes),
            Part::File(file, at, len) => {
                const PIECE: u64 = 8 << 20;
                let mut done = 0;
                while done < len {
                    let piece = (len - done).min(PIECE);
                    out.write_all(&file.read(at + done, piece as usize)?)?;
                    done += piece;
                }
                Ok(())
            }
        })?;
        out.flush()
    }

    /// Hands `write` the file's parts in order: the header (with the
    /// CRC-32 of everything after it up to the index), metadata,
    /// signature, block list, slug directory, index, table, and each data
    /// buffer (the bodies left in a file read from it in pieces). A head
    /// read a block at a time is read whole first, every block checked: an
    /// error when one fails.
    pub(crate) fn write_parts(&self, mut write: impl FnMut(Part<'_>) -> std::io::Result<()>) -> std::io::Result<()> {
        let signature = self.signature.map(|s| [&s.public_key[..], &s.signature[..]].concat()).unwrap_or_default();
        let mut lengths = Vec::with_capacity(8 * REGIONS);
        let table = self.table;
        let lengths_of = [
            self.metadata_json.len() as u64,
            signature.len() as u64,
            self.blocks.len() as u64,
            self.directory.len() as u64,
            self.index.len(),
            table,
            self.data_len - table,
        ];
        for len in lengths_of {
            lengths.extend_from_slice(&len.to_le_bytes());
        }
        let summary: [&[u8]; 5] = [&lengths, &self.metadata_json, &signature, &self.blocks, &self.directory];
        let mut header = Vec::with_capacity(16);
        header.extend_from_slice(&MAGIC);
        header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        header.extend_from_slice(&crc32(&summary).to_le_bytes());
        write(Part::Head(&header))?;
        for part in summary {
            write(Part::Head(part))?;
        }
        let mut written = Ok(());
        let mut head = |bytes: &[u8]| {
            if written.is_ok() {
                written = write(Part::Head(bytes));
            }
        };
        self.head_pieces(&mut head).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        written?;
        // The table was written with the head: the pieces from its end on.
        for (at, piece) in self.data.iter().filter(|(at, piece)| at + piece.len() > table) {
            match piece {
                Piece::Memory(buffer) if *at < table => write(Part::Head(&buffer[(table - at) as usize..]))?,
                Piece::Memory(buffer) => write(Part::Data(buffer))?,
                Piece::File { file, at, len } => write(Part::File(file, *at, *len))?,
            }
        }
        if let Bodies::File(file) = &self.bodies {
            const PIECE: u64 = 8 << 20;
            let mut at = self.table;
            while at < self.data_len {
                let len = (self.data_len - at).min(PIECE);
                write(Part::Data(&Bytes::from(file.read(at, len as usize)?)))?;
                at += len;
            }
        }
        Ok(())
    }

    /// The whole file as bytes.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(usize::try_from(self.file_len()).unwrap_or_default());
        // Writing to a Vec cannot fail.
        let _ = self.write_to(&mut out);
        out
    }

    /// The bytes a signature signs: the context, then the version (so a
    /// signed file cannot be relabelled to be read another way), the
    /// metadata and the block list (which names the index and the table),
    /// each after its length.
    #[cfg(feature = "signing")]
    pub(crate) fn signed_message(&self) -> Vec<u8> {
        signed_message(&FORMAT_VERSION.to_le_bytes(), [&self.metadata_json, &self.blocks])
    }
}
