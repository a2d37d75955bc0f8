// A SQLite VFS over the default one ("unix") that changes one thing: how a write-ahead log file
// is written. SQLite writes each frame of a transaction as two writes — its 24-byte header, then
// its page — so a move (three pages) made six pwrite calls, each touching one or two pages of the
// OS's page cache (frames are 4,120 bytes, not page-aligned): ~6.5 % of the server's CPU under
// 50 clients moving (issue 15.3). Here the frames a transaction appends are gathered in memory
// and written with one call when its commit frame is complete — before SQLite publishes the new
// frames to other connections (which happens after `sqlite3WalFrames` has written them), so a
// reader or a killed process finds in the file exactly what SQLite would have written by then.
//
// The frame format (https://www.sqlite.org/fileformat2.html#walformat): a 32-byte header at
// offset 0, then frames of a 24-byte header (bytes 4–7: the database size after a commit, 0 in
// every other frame) and a page. What is kept in memory is only ever the end of the file written
// since the last flush:
// - a write that continues the gathered bytes, or that starts at or past the end of the frames
//   written to the file so far (a transaction's first frame), or the log's header at offset 0
//   (the log starting over: frames are new from there), is gathered;
// - a write inside the gathered bytes replaces them there (a page written twice before its
//   transaction's commit);
// - any other write (SQLite rewriting frames already in the file: a page again, or checksums
//   after a commit) goes to the file at once, after what was gathered;
// - the gathered bytes go to the file after a commit frame's page, before any read, size, sync,
//   truncate or close of the file, and whenever they pass 1 MiB — in writes of at most 124 KiB
//   (what the unix VFS's write takes at once): one write for a commit of up to 30 frames.
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include "CSQLiteWALBuffer.h"

#define FRAME_HEADER 24
#define LOG_HEADER 32
#define GATHER_LIMIT (1 << 20)
#define ROUND8(n) (((n) + 7) & ~7)

typedef struct WALFile {
    sqlite3_file base;       // its pMethods: walMethods
    sqlite3_file *real;      // the default VFS's file, in the same allocation after this struct
    unsigned char *data;     // gathered bytes: the file's [start, start + length)
    sqlite3_int64 start;
    int length, capacity;
    sqlite3_int64 written;   // the end of the file's frames written so far (since the log's start over)
    int commitPending;       // a commit frame's header was gathered: its page completes it
    GalleryWALBufferStats stats;
} WALFile;

static sqlite3_vfs walVFS;
static sqlite3_vfs *defaultVFS;
static sqlite3_io_methods walMethods;

static int writeThrough(WALFile *f, const void *bytes, int amount, sqlite3_int64 offset) {
    int rc = f->real->pMethods->xWrite(f->real, bytes, amount, offset);
    f->stats.writesMade++;
    if (rc == SQLITE_OK && offset + amount > f->written) f->written = offset + amount;
    return rc;
}

/// The most one write to the default VFS's file takes: its unix write keeps only the low 17 bits
/// of a write's length (`seekAndWriteFd`: SQLite never writes more than a page and a header), so
/// longer ones go in parts.
#define WRITE_MOST 0x1f000

static int flush(WALFile *f) {
    int length = f->length, done = 0, rc = SQLITE_OK;
    f->length = 0;
    f->commitPending = 0;
    while (done < length && rc == SQLITE_OK) {
        int part = length - done < WRITE_MOST ? length - done : WRITE_MOST;
        rc = writeThrough(f, f->data + done, part, f->start + done);
        done += part;
    }
    return rc;
}

/// Appends a write at `offset`, the end of the gathered bytes (or the start of new ones).
static int gather(WALFile *f, const void *bytes, int amount, sqlite3_int64 offset) {
    if (f->length == 0) f->start = offset;
    if (f->length + amount > f->capacity) {
        int capacity = f->capacity ? f->capacity : 64 << 10;
        while (capacity < f->length + amount) capacity *= 2;
        unsigned char *grown = sqlite3_realloc(f->data, capacity);
        if (!grown) { // no memory for more: what was gathered, then this write, go to the file
            int rc = flush(f);
            return rc != SQLITE_OK ? rc : writeThrough(f, bytes, amount, offset);
        }
        f->data = grown;
        f->capacity = capacity;
    }
    memcpy(f->data + f->length, bytes, amount);
    f->length += amount;
    return SQLITE_OK;
}

static int walWrite(sqlite3_file *file, const void *bytes, int amount, sqlite3_int64 offset) {
    WALFile *f = (WALFile *)file;
    f->stats.writesAsked++;
    const unsigned char *b = bytes;
    int commitHeader = amount == FRAME_HEADER && (b[4] | b[5] | b[6] | b[7]) != 0;
    if (commitHeader) f->stats.commits++;
    int rc;
    if (f->length > 0 && offset >= f->start && offset + amount <= f->start + f->length) {
        memcpy(f->data + (offset - f->start), bytes, amount);
    } else if (f->length > 0 && offset == f->start + f->length) {
        if ((rc = gather(f, bytes, amount, offset)) != SQLITE_OK) return rc;
    } else if (offset >= f->written || (offset == 0 && amount == LOG_HEADER)) {
        if ((rc = flush(f)) != SQLITE_OK) return rc;
        if (offset == 0) f->written = 0; // the log starts over: the frames after its header are new
        if ((rc = gather(f, bytes, amount, offset)) != SQLITE_OK) return rc;
    } else {
        if ((rc = flush(f)) != SQLITE_OK) return rc;
        return writeThrough(f, bytes, amount, offset);
    }
    if (f->commitPending && amount != FRAME_HEADER) return flush(f);
    if (commitHeader) f->commitPending = 1;
    return f->length >= GATHER_LIMIT ? flush(f) : SQLITE_OK;
}

static int walRead(sqlite3_file *file, void *bytes, int amount, sqlite3_int64 offset) {
    WALFile *f = (WALFile *)file;
    if (f->length > 0 && offset < f->start + f->length && offset + amount > f->start) {
        int rc = flush(f);
        if (rc != SQLITE_OK) return rc;
    }
    return f->real->pMethods->xRead(f->real, bytes, amount, offset);
}

static int walClose(sqlite3_file *file) {
    WALFile *f = (WALFile *)file;
    int rc = flush(f);
    int closed = f->real->pMethods->xClose(f->real);
    sqlite3_free(f->data);
    f->data = NULL;
    f->capacity = 0;
    return rc != SQLITE_OK ? rc : closed;
}

static int walTruncate(sqlite3_file *file, sqlite3_int64 size) {
    WALFile *f = (WALFile *)file;
    int rc = flush(f);
    if (rc != SQLITE_OK) return rc;
    rc = f->real->pMethods->xTruncate(f->real, size);
    if (rc == SQLITE_OK && f->written > size) f->written = size;
    return rc;
}

static int walSync(sqlite3_file *file, int flags) {
    WALFile *f = (WALFile *)file;
    int rc = flush(f);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xSync(f->real, flags);
}

static int walFileSize(sqlite3_file *file, sqlite3_int64 *size) {
    WALFile *f = (WALFile *)file;
    int rc = flush(f);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xFileSize(f->real, size);
}

static int walLock(sqlite3_file *file, int lock) { return ((WALFile *)file)->real->pMethods->xLock(((WALFile *)file)->real, lock); }
static int walUnlock(sqlite3_file *file, int lock) { return ((WALFile *)file)->real->pMethods->xUnlock(((WALFile *)file)->real, lock); }
static int walCheckReservedLock(sqlite3_file *file, int *out) {
    return ((WALFile *)file)->real->pMethods->xCheckReservedLock(((WALFile *)file)->real, out);
}
static int walFileControl(sqlite3_file *file, int op, void *arg) {
    WALFile *f = (WALFile *)file;
    int rc = flush(f);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xFileControl(f->real, op, arg);
}
static int walSectorSize(sqlite3_file *file) { return ((WALFile *)file)->real->pMethods->xSectorSize(((WALFile *)file)->real); }
static int walDeviceCharacteristics(sqlite3_file *file) {
    return ((WALFile *)file)->real->pMethods->xDeviceCharacteristics(((WALFile *)file)->real);
}
static int walShmMap(sqlite3_file *file, int region, int size, int extend, void volatile **out) {
    return ((WALFile *)file)->real->pMethods->xShmMap(((WALFile *)file)->real, region, size, extend, out);
}
static int walShmLock(sqlite3_file *file, int offset, int n, int flags) {
    return ((WALFile *)file)->real->pMethods->xShmLock(((WALFile *)file)->real, offset, n, flags);
}
static void walShmBarrier(sqlite3_file *file) { ((WALFile *)file)->real->pMethods->xShmBarrier(((WALFile *)file)->real); }
static int walShmUnmap(sqlite3_file *file, int deleteFlag) {
    return ((WALFile *)file)->real->pMethods->xShmUnmap(((WALFile *)file)->real, deleteFlag);
}
// Memory-mapped reads (SQLite maps no log; a VFS without them answers "not mapped").
static int walFetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **out) {
    WALFile *f = (WALFile *)file;
    int rc = flush(f);
    if (rc != SQLITE_OK) return rc;
    if (f->real->pMethods->iVersion < 3) { *out = NULL; return SQLITE_OK; }
    return f->real->pMethods->xFetch(f->real, offset, amount, out);
}
static int walUnfetch(sqlite3_file *file, sqlite3_int64 offset, void *page) {
    WALFile *f = (WALFile *)file;
    return f->real->pMethods->iVersion < 3 ? SQLITE_OK : f->real->pMethods->xUnfetch(f->real, offset, page);
}

/// Every file but a write-ahead log is the default VFS's own, in the memory SQLite gave; a log is
/// wrapped (the default VFS's file after the wrapper).
static int walOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *outFlags) {
    (void)vfs;
    if (!(flags & SQLITE_OPEN_WAL)) return defaultVFS->xOpen(defaultVFS, name, file, flags, outFlags);
    WALFile *f = (WALFile *)file;
    memset(f, 0, sizeof(WALFile));
    f->real = (sqlite3_file *)((char *)file + ROUND8(sizeof(WALFile)));
    int rc = defaultVFS->xOpen(defaultVFS, name, f->real, flags, outFlags);
    if (rc != SQLITE_OK || !f->real->pMethods) {
        if (f->real->pMethods) f->real->pMethods->xClose(f->real);
        f->base.pMethods = NULL;
        return rc != SQLITE_OK ? rc : SQLITE_CANTOPEN;
    }
    f->base.pMethods = &walMethods;
    return SQLITE_OK;
}

static int walDelete(sqlite3_vfs *v, const char *name, int syncDir) { (void)v; return defaultVFS->xDelete(defaultVFS, name, syncDir); }
static int walAccess(sqlite3_vfs *v, const char *name, int flags, int *out) { (void)v; return defaultVFS->xAccess(defaultVFS, name, flags, out); }
static int walFullPathname(sqlite3_vfs *v, const char *name, int n, char *out) { (void)v; return defaultVFS->xFullPathname(defaultVFS, name, n, out); }
static void *walDlOpen(sqlite3_vfs *v, const char *name) { (void)v; return defaultVFS->xDlOpen(defaultVFS, name); }
static void walDlError(sqlite3_vfs *v, int n, char *out) { (void)v; defaultVFS->xDlError(defaultVFS, n, out); }
static void (*walDlSym(sqlite3_vfs *v, void *h, const char *sym))(void) { (void)v; return defaultVFS->xDlSym(defaultVFS, h, sym); }
static void walDlClose(sqlite3_vfs *v, void *h) { (void)v; defaultVFS->xDlClose(defaultVFS, h); }
static int walRandomness(sqlite3_vfs *v, int n, char *out) { (void)v; return defaultVFS->xRandomness(defaultVFS, n, out); }
static int walSleep(sqlite3_vfs *v, int us) { (void)v; return defaultVFS->xSleep(defaultVFS, us); }
static int walCurrentTime(sqlite3_vfs *v, double *out) { (void)v; return defaultVFS->xCurrentTime(defaultVFS, out); }
static int walGetLastError(sqlite3_vfs *v, int n, char *out) { (void)v; return defaultVFS->xGetLastError ? defaultVFS->xGetLastError(defaultVFS, n, out) : 0; }
static int walCurrentTimeInt64(sqlite3_vfs *v, sqlite3_int64 *out) { (void)v; return defaultVFS->xCurrentTimeInt64(defaultVFS, out); }
static int walSetSystemCall(sqlite3_vfs *v, const char *name, sqlite3_syscall_ptr p) { (void)v; return defaultVFS->xSetSystemCall(defaultVFS, name, p); }
static sqlite3_syscall_ptr walGetSystemCall(sqlite3_vfs *v, const char *name) { (void)v; return defaultVFS->xGetSystemCall(defaultVFS, name); }
static const char *walNextSystemCall(sqlite3_vfs *v, const char *name) { (void)v; return defaultVFS->xNextSystemCall(defaultVFS, name); }

static int registered = SQLITE_OK;

static void registerOnce(void) {
    defaultVFS = sqlite3_vfs_find(NULL);
    if (!defaultVFS || defaultVFS->iVersion < 3) { registered = SQLITE_ERROR; return; }
    walMethods = (sqlite3_io_methods){
        3, walClose, walRead, walWrite, walTruncate, walSync, walFileSize, walLock, walUnlock,
        walCheckReservedLock, walFileControl, walSectorSize, walDeviceCharacteristics,
        walShmMap, walShmLock, walShmBarrier, walShmUnmap, walFetch, walUnfetch,
    };
    walVFS = (sqlite3_vfs){
        3, (int)ROUND8(sizeof(WALFile)) + defaultVFS->szOsFile, defaultVFS->mxPathname, NULL,
        "gallery-wal-buffer", NULL, walOpen, walDelete, walAccess, walFullPathname, walDlOpen,
        walDlError, walDlSym, walDlClose, walRandomness, walSleep, walCurrentTime, walGetLastError,
        walCurrentTimeInt64, walSetSystemCall, walGetSystemCall, walNextSystemCall,
    };
    registered = sqlite3_vfs_register(&walVFS, 1);
}

int gallery_wal_buffer_register(void) {
    // Once per process, whichever store opens first (not under SQLite's own main mutex, which
    // sqlite3_vfs_find and sqlite3_vfs_register take themselves).
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, registerOnce);
    return registered;
}

int gallery_wal_buffer_file_stats(void *file, GalleryWALBufferStats *stats) {
    sqlite3_file *f = file;
    if (!f || f->pMethods != &walMethods) return 0;
    *stats = ((WALFile *)f)->stats;
    return 1;
}
