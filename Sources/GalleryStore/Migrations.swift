import GRDB

/// Named, append-only migrations: a released migration is never edited, a change is a new one.
enum Migrations {
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1 galleries, sections, items, operation log") { db in
            try db.execute(sql: """
                CREATE TABLE gallery (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL,
                    version INTEGER NOT NULL DEFAULT 0,
                    createdAt REAL NOT NULL
                );
                CREATE TABLE section (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    galleryId INTEGER NOT NULL REFERENCES gallery(id) ON DELETE CASCADE,
                    title TEXT NOT NULL,
                    rank TEXT NOT NULL,
                    deleted INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX section_by_gallery ON section(galleryId, deleted, rank);
                -- AUTOINCREMENT: an id is never reused after a purge, so a client's snapshot cannot confuse two items.
                CREATE TABLE item (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    galleryId INTEGER NOT NULL REFERENCES gallery(id) ON DELETE CASCADE,
                    sectionId INTEGER NOT NULL REFERENCES section(id) ON DELETE CASCADE,
                    rank TEXT NOT NULL,
                    title TEXT NOT NULL,
                    sourceURL TEXT,
                    fileHash TEXT,
                    width INTEGER,
                    height INTEGER,
                    aspect REAL NOT NULL DEFAULT 1,
                    state TEXT NOT NULL CHECK (state IN ('pending', 'ready', 'failed')),
                    reason TEXT,
                    contentVersion INTEGER NOT NULL DEFAULT 0,
                    trashed INTEGER NOT NULL DEFAULT 0,
                    trashedAt REAL,
                    createdAt REAL NOT NULL
                );
                CREATE INDEX item_by_section ON item(sectionId, trashed, rank);
                CREATE INDEX item_by_gallery ON item(galleryId, trashed);
                CREATE INDEX item_pending ON item(state) WHERE state = 'pending';
                CREATE INDEX item_by_hash ON item(fileHash);
                -- One row per gallery version: what was asked, kept for audit and for rebuilding history.
                CREATE TABLE operation (
                    galleryId INTEGER NOT NULL REFERENCES gallery(id) ON DELETE CASCADE,
                    version INTEGER NOT NULL,
                    payload TEXT NOT NULL,
                    createdAt REAL NOT NULL,
                    PRIMARY KEY (galleryId, version)
                );
                """)
        }
        m.registerMigration("v2 persisted catch-up: stages per version, checkpoint snapshots") { db in
            try db.execute(sql: """
                -- The staged changes of each version (JSON [StageJSON]), written in the batch's own
                -- transaction, so that the catch-up window can be rebuilt after a restart.
                -- NULL for versions logged before this migration.
                ALTER TABLE operation ADD COLUMN stages TEXT;
                -- Engine snapshots (section ids, item ids and content versions; compact binary) at
                -- some versions: every 250th and the version a process first loaded the gallery at.
                CREATE TABLE checkpoint (
                    galleryId INTEGER NOT NULL REFERENCES gallery(id) ON DELETE CASCADE,
                    version INTEGER NOT NULL,
                    snapshot BLOB NOT NULL,
                    PRIMARY KEY (galleryId, version)
                );
                """)
        }
        return m
    }
}
