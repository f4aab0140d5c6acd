//! Opening the files the program maps or reads whole (tables, books): only regular files.
//! A FIFO under a table's name would block the open forever, and a folder or device would
//! fail later with an error that names neither the file nor the fault; both are refused at
//! once, naming what the path is.

use std::fs::File;
use std::io;
use std::path::Path;

/// Opens `path` for reading if it is a regular file (or a link to one). The open itself
/// cannot block: it does not wait for a FIFO's writer.
pub(crate) fn open_regular(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let kind = file.metadata()?.file_type();
    if kind.is_file() {
        return Ok(file);
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("is {}, not a regular file", kind_name(kind)),
    ))
}

/// What a file that is not regular is, in words.
fn kind_name(kind: std::fs::FileType) -> &'static str {
    if kind.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
    }
    "something else"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_open() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.rbt");
        std::fs::write(&file, b"x").unwrap();
        assert!(open_regular(&file).is_ok());
        let e = open_regular(dir.path()).unwrap_err();
        assert_eq!(e.to_string(), "is a folder, not a regular file");
        #[cfg(target_os = "linux")]
        {
            let fifo = dir.path().join("b.rbt");
            let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
            // SAFETY: a NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            // Returns at once (no writer is waited for), refused.
            let e = open_regular(&fifo).unwrap_err();
            assert_eq!(e.to_string(), "is a FIFO, not a regular file");
        }
        assert_eq!(
            open_regular(&dir.path().join("none")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }
}
