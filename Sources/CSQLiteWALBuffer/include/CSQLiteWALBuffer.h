#ifndef GALLERY_WAL_BUFFER_H
#define GALLERY_WAL_BUFFER_H

/// A SQLite VFS over the default one that writes each transaction's write-ahead log frames in
/// one write instead of two per frame (wal_buffer.c). Registers it as the default VFS once;
/// answers SQLite's result code (0: done, or done before).
int gallery_wal_buffer_register(void);

/// What a write-ahead log file opened through the VFS did (for tests): the writes SQLite made
/// to it, the writes that reached the file, and the commit frames seen.
typedef struct {
    long long writesAsked;
    long long writesMade;
    long long commits;
} GalleryWALBufferStats;

/// The counts of a write-ahead log file (`file`: the `sqlite3_file *` that
/// `SQLITE_FCNTL_JOURNAL_POINTER` answers); 0 when it was not opened through the VFS.
int gallery_wal_buffer_file_stats(void *file, GalleryWALBufferStats *stats);

#endif
