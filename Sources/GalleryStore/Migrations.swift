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
        m.registerMigration("v3 accounts, sessions, API tokens, members, share links") { db in
            try db.execute(sql: """
                -- Secrets are never stored as given: passwords as bcrypt hashes, session ids, API
                -- tokens, link tokens and recovery codes (all 256-bit random) as SHA-256 hex.
                CREATE TABLE account (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
                    passwordHash TEXT NOT NULL,
                    admin INTEGER NOT NULL DEFAULT 0,
                    totpSecret TEXT,          -- base32; set once confirmed
                    totpPending TEXT,         -- base32; between "enable" and the first code
                    totpLastStep INTEGER,     -- the last time step used: a code is accepted once
                    createdAt REAL NOT NULL
                );
                CREATE TABLE recovery_code (
                    accountId INTEGER NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    codeHash TEXT NOT NULL,
                    usedAt REAL,
                    PRIMARY KEY (accountId, codeHash)
                );
                -- The first account owns every gallery that was there before it.
                CREATE TABLE member (
                    galleryId INTEGER NOT NULL REFERENCES gallery(id) ON DELETE CASCADE,
                    accountId INTEGER NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')),
                    PRIMARY KEY (galleryId, accountId)
                );
                CREATE INDEX member_by_account ON member(accountId);
                CREATE TABLE share_link (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    galleryId INTEGER NOT NULL REFERENCES gallery(id) ON DELETE CASCADE,
                    createdBy INTEGER REFERENCES account(id) ON DELETE SET NULL,
                    role TEXT NOT NULL CHECK (role IN ('viewer', 'editor', 'uploader')),
                    tokenHash TEXT NOT NULL UNIQUE,
                    passwordHash TEXT,
                    expiresAt REAL,
                    allowDownload INTEGER NOT NULL DEFAULT 0,
                    showMetadata INTEGER NOT NULL DEFAULT 0,
                    createdAt REAL NOT NULL,
                    lastUsedAt REAL,
                    revokedAt REAL
                );
                CREATE INDEX share_link_by_gallery ON share_link(galleryId);
                -- What an uploader link added: the only items its visitors see.
                CREATE TABLE link_item (
                    linkId INTEGER NOT NULL REFERENCES share_link(id) ON DELETE CASCADE,
                    itemId INTEGER NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    PRIMARY KEY (linkId, itemId)
                );
                -- A signed-in browser (accountId) or a share-link visitor (linkId).
                CREATE TABLE session (
                    idHash TEXT PRIMARY KEY,
                    accountId INTEGER REFERENCES account(id) ON DELETE CASCADE,
                    linkId INTEGER REFERENCES share_link(id) ON DELETE CASCADE,
                    createdAt REAL NOT NULL,
                    lastSeenAt REAL NOT NULL,
                    CHECK ((accountId IS NULL) <> (linkId IS NULL))
                );
                CREATE INDEX session_by_account ON session(accountId);
                CREATE INDEX session_by_link ON session(linkId);
                CREATE TABLE api_token (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    accountId INTEGER NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    scope TEXT NOT NULL CHECK (scope IN ('read', 'write')),
                    tokenHash TEXT NOT NULL UNIQUE,
                    createdAt REAL NOT NULL,
                    lastUsedAt REAL
                );
                """)
        }
        m.registerMigration("v4 maintenance: re-probe stored sizes for EXIF orientation") { db in
            try db.execute(sql: """
                -- Work the server does once, in the background, after an upgrade: a row per task
                -- until it is done. Items ingested before orientation was read have their stored
                -- (not displayed) size: the server re-probes their originals and corrects them.
                CREATE TABLE maintenance (task TEXT PRIMARY KEY, since REAL NOT NULL);
                INSERT INTO maintenance (task, since)
                    SELECT 'reprobe-orientation', strftime('%s', 'now') WHERE EXISTS (SELECT 1 FROM item WHERE state = 'ready');
                """)
        }
        m.registerMigration("v5 ingestion leases, start-up claims, setup tokens") { db in
            try db.execute(sql: """
                -- Several instances on one database (issue 14): a pending item is worked on by the
                -- instance that claimed it (leaseOwner: its instance name and process token) until
                -- leaseUntil (seconds since 1970, the database's clock); the holder renews it while
                -- the work runs, and the finish clears both. NULL: nobody holds it. An expired
                -- lease is claimed by any instance (a killed instance's items finish elsewhere).
                ALTER TABLE item ADD COLUMN leaseOwner TEXT;
                ALTER TABLE item ADD COLUMN leaseUntil REAL;
                -- Things done once per database whoever starts first (the sample gallery): the
                -- first instance to insert the row does it.
                CREATE TABLE startup_claim (task TEXT PRIMARY KEY, claimedBy TEXT NOT NULL, claimedAt REAL NOT NULL);
                -- The first-account links each instance printed while no account exists (SHA-256
                -- of the token): any instance accepts any of them, once; all go with the first account.
                CREATE TABLE setup_token (tokenHash TEXT PRIMARY KEY, createdAt REAL NOT NULL);
                """)
        }
        m.registerMigration("v6 galleries deleted in parts, server keys") { db in
            try db.execute(sql: """
                -- A gallery being deleted (1): gone for everyone at once, its rows removed a part
                -- at a time afterwards (at a million items one transaction held every write for
                -- seconds); the row itself goes last. A start finishes what a stopped server left.
                ALTER TABLE gallery ADD COLUMN deleting INTEGER NOT NULL DEFAULT 0;
                -- Keys the server signs with that outlive a restart and are the same at every
                -- instance (the device cookies' HMAC key): made once by whoever starts first.
                CREATE TABLE server_key (name TEXT PRIMARY KEY, secret BLOB NOT NULL, createdAt REAL NOT NULL);
                """)
        }
        return m
    }
}
