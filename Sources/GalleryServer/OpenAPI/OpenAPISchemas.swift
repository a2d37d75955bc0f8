/// The bodies of the API as JSON Schema (OpenAPI 3.1's dialect, draft 2020-12): the
/// `components` of the contract `OpenAPIDocument` serves at `/api/openapi.json`.
///
/// Written by hand after the Swift types that encode them (named beside each). Optional Swift
/// properties are left out of an answer when nil (`JSONEncoder`), so they are never `required`
/// here and never `null`. schemathesis checks every answer of a live server against these
/// (Tests/contract/fuzz.py, run by scripts/test.sh).
enum OpenAPISchemas {
    static let json = #"""
{
  "securitySchemes": {
    "session": {
      "type": "apiKey", "in": "cookie", "name": "gallery_session",
      "description": "A browser's server-side session: set by POST /api/login, /api/setup and (for a share link's visitor, bound to the link) POST /api/links/open. HttpOnly, SameSite=Lax, Secure behind https. A state-changing request (POST, PUT, PATCH, DELETE) with this cookie must also send an Origin of this server (or Sec-Fetch-Site: same-origin), else 403; its body must be application/json, multipart/form-data or application/zip, else 415."
    },
    "token": {
      "type": "http", "scheme": "bearer", "bearerFormat": "gat_…",
      "description": "An API token (POST /api/tokens, shown once): read scope for GET only, write scope for everything its account may do except managing credentials (tokens, second factor, passwords, sign-out everywhere: a session only). No Origin needed. An unknown or revoked token is 401 on every route."
    }
  },
  "schemas": {
    "Error": {
      "description": "Every refusal (APIError). Extra fields where they help: a stale batch's baseVersion, currentVersion and changes; maxItems with a batch's 413 (the most items one batch may name, a section deleted naming its live items), maxOperations with one holding too many operations; retryAfter with 429; codeRequired or passwordRequired with 401.",
      "type": "object", "required": ["error"],
      "properties": {
        "error": {
          "type": "object", "required": ["status", "message"],
          "properties": {
            "status": {"type": "integer", "minimum": 400, "maximum": 599},
            "message": {"type": "string"},
            "baseVersion": {"type": "integer"},
            "currentVersion": {"type": "integer"},
            "changes": {"$ref": "#/components/schemas/Changes"},
            "maxItems": {"type": "integer", "minimum": 1},
            "maxOperations": {"type": "integer", "minimum": 1},
            "retryAfter": {"type": "integer", "minimum": 0},
            "codeRequired": {"type": "boolean"},
            "passwordRequired": {"type": "boolean"}
          }
        }
      }
    },
    "Id": {"type": "integer", "format": "int64", "minimum": 1, "maximum": 9007199254740991, "description": "Ids are positive and below 2^53 (exact in JavaScript)."},
    "Role": {"type": "string", "enum": ["owner", "editor", "viewer"]},
    "LinkRole": {"type": "string", "enum": ["viewer", "editor", "uploader"]},
    "Timestamp": {"type": "number", "description": "Seconds since 1970 (UTC)."},
    "GalleryInfo": {
      "description": "GalleryInfo. role: the caller's role there (lists, creation); absent elsewhere.",
      "type": "object", "required": ["id", "name", "version", "itemCount", "createdAt"],
      "properties": {
        "id": {"$ref": "#/components/schemas/Id"}, "name": {"type": "string"},
        "version": {"type": "integer", "minimum": 0}, "itemCount": {"type": "integer", "minimum": 0},
        "createdAt": {"$ref": "#/components/schemas/Timestamp"},
        "role": {"type": "string", "enum": ["owner", "editor", "viewer", "uploader"]}
      }
    },
    "Item": {
      "description": "ItemJSON. aspect is width / height when ready, 1 while pending or failed. version is the item's content version (bumped when what its cell shows changes).",
      "type": "object", "required": ["id", "sectionId", "title", "aspect", "state", "version", "trashed"],
      "properties": {
        "id": {"$ref": "#/components/schemas/Id"}, "sectionId": {"$ref": "#/components/schemas/Id"},
        "title": {"type": "string"}, "sourceURL": {"type": "string"},
        "fileHash": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        "width": {"type": "integer", "minimum": 0}, "height": {"type": "integer", "minimum": 0},
        "aspect": {"type": "number", "exclusiveMinimum": 0},
        "state": {"type": "string", "enum": ["pending", "ready", "failed"]},
        "reason": {"type": "string", "description": "Why it failed."},
        "version": {"type": "integer", "minimum": 0, "maximum": 4294967295},
        "thumbnails": {
          "type": "object", "required": ["grid", "detail", "original"],
          "properties": {"grid": {"type": "string"}, "detail": {"type": "string"}, "original": {"type": "string"}}
        },
        "trashed": {"type": "boolean"}
      }
    },
    "Section": {
      "type": "object", "required": ["id", "title", "items"],
      "properties": {
        "id": {"$ref": "#/components/schemas/Id"}, "title": {"type": "string"},
        "items": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}}
      }
    },
    "Snapshot": {
      "description": "GallerySnapshotJSON: the whole gallery at one version, sections in order.",
      "type": "object", "required": ["gallery", "version", "sections"],
      "properties": {
        "gallery": {"$ref": "#/components/schemas/GalleryInfo"}, "version": {"type": "integer", "minimum": 0},
        "sections": {"type": "array", "items": {"$ref": "#/components/schemas/Section"}}
      }
    },
    "Columns": {
      "description": "SnapshotColumns.json(): the snapshot as parallel arrays in section order (the first sections[0].count items are section 0's). state has one letter per item: r ready, p pending, f failed.",
      "type": "object",
      "required": ["format", "gallery", "version", "sections", "id", "contentVersion", "aspect", "state", "title", "width", "height", "details"],
      "properties": {
        "format": {"const": "columns-2"},
        "gallery": {"$ref": "#/components/schemas/GalleryInfo"}, "version": {"type": "integer", "minimum": 0},
        "sections": {"type": "array", "items": {
          "type": "object", "required": ["id", "title", "count"],
          "properties": {"id": {"$ref": "#/components/schemas/Id"}, "title": {"type": "string"}, "count": {"type": "integer", "minimum": 0}}
        }},
        "id": {"type": "array", "items": {"$ref": "#/components/schemas/Id"}},
        "contentVersion": {"type": "array", "items": {"type": "integer", "minimum": 0}},
        "aspect": {"type": "array", "items": {"type": "number"}},
        "state": {"type": "string", "pattern": "^[rpf]*$"},
        "title": {"type": "array", "items": {"type": "string"}},
        "width": {"type": "array", "items": {"type": "integer", "minimum": 0}},
        "height": {"type": "array", "items": {"type": "integer", "minimum": 0}},
        "details": {"type": "object", "additionalProperties": {
          "type": "object", "properties": {"reason": {"type": "string"}, "sourceURL": {"type": "string"}}
        }}
      }
    },
    "IndexPath": {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 2, "maxItems": 2, "description": "[section, item]"},
    "Stage": {
      "description": "StageJSON: one UIKit-consistent performBatchUpdates of GridEngine's StagedChangeset. deletedIDs, movedIDs and reloadedIDs name the items at itemDeletes, at the from of itemMoves and at itemReloads.",
      "type": "object",
      "required": ["sectionDeletes", "sectionInserts", "sectionMoves", "itemDeletes", "itemInserts", "itemMoves", "itemReloads", "itemCountsAfter"],
      "properties": {
        "sectionDeletes": {"type": "array", "items": {"type": "integer", "minimum": 0}},
        "sectionInserts": {"type": "array", "items": {
          "type": "object", "required": ["index", "id", "items", "versions"],
          "properties": {
            "index": {"type": "integer", "minimum": 0}, "id": {"type": "integer", "minimum": 0},
            "items": {"type": "array", "items": {"type": "integer", "minimum": 0}},
            "versions": {"type": "array", "items": {"type": "integer", "minimum": 0}}
          }
        }},
        "sectionMoves": {"type": "array", "items": {
          "type": "object", "required": ["from", "to"],
          "properties": {
            "from": {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 1, "maxItems": 1},
            "to": {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 1, "maxItems": 1}
          }
        }},
        "itemDeletes": {"type": "array", "items": {"$ref": "#/components/schemas/IndexPath"}},
        "itemInserts": {"type": "array", "items": {
          "type": "object", "required": ["at", "id", "version"],
          "properties": {"at": {"$ref": "#/components/schemas/IndexPath"}, "id": {"type": "integer", "minimum": 0}, "version": {"type": "integer", "minimum": 0}}
        }},
        "itemMoves": {"type": "array", "items": {
          "type": "object", "required": ["from", "to"],
          "properties": {"from": {"$ref": "#/components/schemas/IndexPath"}, "to": {"$ref": "#/components/schemas/IndexPath"}}
        }},
        "itemReloads": {"type": "array", "items": {
          "type": "object", "required": ["at", "version"],
          "properties": {"at": {"$ref": "#/components/schemas/IndexPath"}, "version": {"type": "integer", "minimum": 0}}
        }},
        "itemCountsAfter": {"type": "array", "items": {"type": "integer", "minimum": 0}},
        "deletedIDs": {"type": "array", "items": {"type": "integer", "minimum": 0}},
        "movedIDs": {"type": "array", "items": {"type": "integer", "minimum": 0}},
        "reloadedIDs": {"type": "array", "items": {"type": "integer", "minimum": 0}}
      }
    },
    "Changes": {
      "description": "ChangesJSON: the stages from fromVersion to toVersion, applied in order to the snapshot at fromVersion; items holds every item they insert or reload, sections the current section titles, name the gallery's current name.",
      "type": "object", "required": ["fromVersion", "toVersion", "stages", "items", "sections"],
      "properties": {
        "fromVersion": {"type": "integer", "minimum": 0}, "toVersion": {"type": "integer", "minimum": 0},
        "stages": {"type": "array", "items": {"$ref": "#/components/schemas/Stage"}},
        "items": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}},
        "sections": {"type": "array", "items": {
          "type": "object", "required": ["id", "title"],
          "properties": {"id": {"$ref": "#/components/schemas/Id"}, "title": {"type": "string"}}
        }},
        "name": {"type": "string"}
      }
    },
    "ChangesOrSnapshot": {
      "description": "changes from since when it is within the catch-up window; else the whole snapshot (up to 10,000 items) or reload (read the columns again).",
      "oneOf": [
        {"type": "object", "required": ["changes"], "properties": {"changes": {"$ref": "#/components/schemas/Changes"}}},
        {"type": "object", "required": ["snapshot"], "properties": {"snapshot": {"$ref": "#/components/schemas/Snapshot"}}},
        {"type": "object", "required": ["reload"], "properties": {"reload": {
          "type": "object", "required": ["version"], "properties": {"version": {"type": "integer", "minimum": 0}}
        }}}
      ]
    },
    "Destination": {
      "description": "Exactly one place: index I of section S (counted after the moved items left), the end of section S, or beside an item.",
      "oneOf": [
        {"type": "object", "required": ["section"], "properties": {"section": {"$ref": "#/components/schemas/Id"}, "index": {"type": "integer", "minimum": 0}}},
        {"type": "object", "required": ["before"], "properties": {"before": {"$ref": "#/components/schemas/Id"}}},
        {"type": "object", "required": ["after"], "properties": {"after": {"$ref": "#/components/schemas/Id"}}}
      ]
    },
    "ItemIds": {"type": "array", "items": {"$ref": "#/components/schemas/Id"}, "minItems": 1, "uniqueItems": true},
    "CreatedIds": {"type": "array", "items": {"$ref": "#/components/schemas/Id"}},
    "BatchOperation": {
      "description": "BatchEdit: one arrangement change.",
      "oneOf": [
        {"type": "object", "required": ["op", "items", "to"], "properties": {"op": {"const": "move"}, "items": {"$ref": "#/components/schemas/ItemIds"}, "to": {"$ref": "#/components/schemas/Destination"}}},
        {"type": "object", "required": ["op", "items", "to"], "properties": {"op": {"const": "copy"}, "items": {"$ref": "#/components/schemas/ItemIds"}, "to": {"$ref": "#/components/schemas/Destination"}}},
        {"type": "object", "required": ["op", "a", "b"], "properties": {"op": {"const": "swap"}, "a": {"$ref": "#/components/schemas/Id"}, "b": {"$ref": "#/components/schemas/Id"}}},
        {"type": "object", "required": ["op", "items"], "properties": {"op": {"enum": ["trash", "restore", "purge"]}, "items": {"$ref": "#/components/schemas/ItemIds"}}},
        {"type": "object", "required": ["op", "item", "title"], "properties": {"op": {"const": "renameItem"}, "item": {"$ref": "#/components/schemas/Id"}, "title": {"$ref": "#/components/schemas/Title"}}},
        {"type": "object", "required": ["op", "title"], "properties": {"op": {"const": "createSection"}, "title": {"$ref": "#/components/schemas/Title"}, "index": {"type": "integer", "minimum": 0}}},
        {"type": "object", "required": ["op", "section", "title"], "properties": {"op": {"const": "renameSection"}, "section": {"$ref": "#/components/schemas/Id"}, "title": {"$ref": "#/components/schemas/Title"}}},
        {"type": "object", "required": ["op", "section", "index"], "properties": {"op": {"const": "moveSection"}, "section": {"$ref": "#/components/schemas/Id"}, "index": {"type": "integer", "minimum": 0}}},
        {"type": "object", "required": ["op", "section"], "properties": {"op": {"const": "deleteSection"}, "section": {"$ref": "#/components/schemas/Id"}}}
      ]
    },
    "Title": {"type": "string", "maxLength": 500},
    "Batch": {
      "type": "object", "required": ["operations"],
      "properties": {
        "baseVersion": {"type": "integer", "minimum": 0, "description": "When given and not the current version: 409 with what changed since, nothing applied."},
        "operations": {"type": "array", "items": {"$ref": "#/components/schemas/BatchOperation"}, "minItems": 1}
      }
    },
    "BatchResult": {
      "description": "BatchResult: one new version. orphanedHashes: image files no item refers to any more (after a purge), removed by the server.",
      "type": "object", "required": ["version", "changes", "createdItems", "createdSections", "rowsWritten", "orphanedHashes"],
      "properties": {
        "version": {"type": "integer", "minimum": 0}, "changes": {"$ref": "#/components/schemas/Changes"},
        "createdItems": {"$ref": "#/components/schemas/CreatedIds"}, "createdSections": {"$ref": "#/components/schemas/CreatedIds"},
        "rowsWritten": {"type": "integer", "minimum": 0},
        "orphanedHashes": {"type": "array", "items": {"type": "string"}}
      }
    },
    "Created": {
      "description": "The pending items an upload or a dropped URL made, and the version that made the last of them.",
      "type": "object", "required": ["version", "items"],
      "properties": {"version": {"type": "integer", "minimum": 0}, "items": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}}}
    },
    "GalleryName": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "\\S", "description": "Trimmed of surrounding white space; not empty; at most 200 characters."},
    "Name": {"type": "object", "required": ["name"], "properties": {"name": {"$ref": "#/components/schemas/GalleryName"}}},
    "OptionalName": {"type": "object", "properties": {"name": {"$ref": "#/components/schemas/GalleryName"}}},
    "SectionOrder": {
      "type": "object", "required": ["section", "by", "items", "undated"],
      "properties": {
        "section": {"$ref": "#/components/schemas/Id"}, "by": {"type": "string", "enum": ["captured", "name"]},
        "items": {"$ref": "#/components/schemas/CreatedIds"}, "undated": {"type": "integer", "minimum": 0}
      }
    },
    "ItemMetadata": {
      "description": "What the detail view shows. A link that hides metadata gets the size only (exif false).",
      "type": "object", "required": ["exif"],
      "properties": {
        "width": {"type": "integer"}, "height": {"type": "integer"}, "fileSize": {"type": "integer", "minimum": 0},
        "captured": {"type": "string", "description": "2024-06-01T18:30:05+02:00, or without an offset when the EXIF has none"},
        "camera": {"type": "string"}, "lens": {"type": "string"}, "exposure": {"type": "string"}, "aperture": {"type": "string"},
        "iso": {"type": "integer"}, "focalLength": {"type": "string"},
        "latitude": {"type": "number"}, "longitude": {"type": "number"},
        "exif": {"type": "boolean"}
      }
    },
    "Account": {
      "type": "object", "required": ["id", "name", "admin", "createdAt", "totp"],
      "properties": {
        "id": {"$ref": "#/components/schemas/Id"}, "name": {"type": "string"}, "admin": {"type": "boolean"},
        "createdAt": {"$ref": "#/components/schemas/Timestamp"}, "totp": {"type": "boolean", "description": "Two-factor sign-in is on."}
      }
    },
    "UserAnswer": {"type": "object", "required": ["user"], "properties": {"user": {"$ref": "#/components/schemas/Account"}}},
    "Session": {
      "description": "Who is asking: an account (user), a share link's visitor (link), or nobody (neither). setup: no account exists yet.",
      "type": "object", "required": ["setup"],
      "properties": {
        "user": {"$ref": "#/components/schemas/Account"},
        "link": {
          "type": "object", "required": ["id", "gallery", "galleryName", "role", "allowDownload", "showMetadata"],
          "properties": {
            "id": {"$ref": "#/components/schemas/Id"}, "gallery": {"$ref": "#/components/schemas/Id"}, "galleryName": {"type": "string"},
            "role": {"$ref": "#/components/schemas/LinkRole"}, "allowDownload": {"type": "boolean"}, "showMetadata": {"type": "boolean"}
          }
        },
        "setup": {"type": "boolean"}
      }
    },
    "Setup": {
      "type": "object", "required": ["token", "name", "password"],
      "properties": {"token": {"type": "string", "description": "The one printed in the server log at start."}, "name": {"$ref": "#/components/schemas/AccountName"}, "password": {"$ref": "#/components/schemas/NewPassword"}}
    },
    "Login": {
      "type": "object", "required": ["name", "password"],
      "properties": {"name": {"type": "string"}, "password": {"type": "string"}, "code": {"type": "string", "description": "A TOTP code or a recovery code, when two-factor sign-in is on."}}
    },
    "NewUser": {
      "type": "object", "required": ["name", "password"],
      "properties": {
        "name": {"$ref": "#/components/schemas/AccountName"},
        "password": {"$ref": "#/components/schemas/NewPassword"}, "admin": {"type": "boolean"}
      }
    },
    "AccountName": {"type": "string", "minLength": 1, "maxLength": 64, "description": "One line, 1-64 characters (trimmed), not digits only, unique regardless of case."},
    "NewPassword": {"type": "string", "minLength": 8, "description": "At least 8 characters and at most 72 bytes (bcrypt's limit): longer is refused, never cut."},
    "PasswordChange": {
      "type": "object", "required": ["password"],
      "properties": {"password": {"$ref": "#/components/schemas/NewPassword"}, "current": {"type": "string", "description": "Required for one's own password."}}
    },
    "Password": {"type": "object", "required": ["password"], "properties": {"password": {"type": "string"}}},
    "Code": {"type": "object", "required": ["code"], "properties": {"code": {"type": "string"}}},
    "TOTPStart": {"type": "object", "required": ["secret", "uri"], "properties": {"secret": {"type": "string"}, "uri": {"type": "string"}}},
    "RecoveryCodes": {
      "type": "object", "required": ["recoveryCodes"],
      "properties": {"recoveryCodes": {"type": "array", "items": {"type": "string"}, "minItems": 10, "maxItems": 10}}
    },
    "Token": {
      "type": "object", "required": ["id", "name", "scope", "createdAt"],
      "properties": {
        "id": {"$ref": "#/components/schemas/Id"}, "name": {"type": "string"}, "scope": {"type": "string", "enum": ["read", "write"]},
        "createdAt": {"$ref": "#/components/schemas/Timestamp"}, "lastUsedAt": {"$ref": "#/components/schemas/Timestamp"}
      }
    },
    "NewToken": {
      "type": "object", "required": ["name", "scope"],
      "properties": {"name": {"type": "string"}, "scope": {"type": "string", "enum": ["read", "write"]}}
    },
    "CreatedToken": {
      "type": "object", "required": ["id", "name", "scope", "createdAt", "token"],
      "properties": {
        "id": {"$ref": "#/components/schemas/Id"}, "name": {"type": "string"}, "scope": {"type": "string", "enum": ["read", "write"]},
        "createdAt": {"$ref": "#/components/schemas/Timestamp"}, "token": {"type": "string", "pattern": "^gat_", "description": "Shown once."}
      }
    },
    "Member": {
      "type": "object", "required": ["user", "role"],
      "properties": {
        "user": {"type": "object", "required": ["id", "name"], "properties": {"id": {"$ref": "#/components/schemas/Id"}, "name": {"type": "string"}}},
        "role": {"$ref": "#/components/schemas/Role"}
      }
    },
    "RoleBody": {"type": "object", "required": ["role"], "properties": {"role": {"$ref": "#/components/schemas/Role"}}},
    "ShareLink": {
      "type": "object", "required": ["id", "gallery", "role", "hasPassword", "allowDownload", "showMetadata", "createdAt", "revoked"],
      "properties": {
        "id": {"$ref": "#/components/schemas/Id"}, "gallery": {"$ref": "#/components/schemas/Id"}, "role": {"$ref": "#/components/schemas/LinkRole"},
        "hasPassword": {"type": "boolean"}, "expiresAt": {"$ref": "#/components/schemas/Timestamp"},
        "allowDownload": {"type": "boolean"}, "showMetadata": {"type": "boolean"},
        "createdAt": {"$ref": "#/components/schemas/Timestamp"}, "lastUsedAt": {"$ref": "#/components/schemas/Timestamp"},
        "revoked": {"type": "boolean"}
      }
    },
    "NewLink": {
      "type": "object", "required": ["role"],
      "properties": {
        "role": {"$ref": "#/components/schemas/LinkRole"},
        "password": {"type": "string", "description": "Empty or absent: none; else 8 to 72 bytes."},
        "expiresInDays": {"type": ["number", "null"], "description": "Absent: 30. null: never. Else more than 0, at most 3650."},
        "allowDownload": {"type": "boolean", "description": "Needs showMetadata (originals carry EXIF and GPS): else 422."},
        "showMetadata": {"type": "boolean"}
      }
    },
    "CreatedLink": {
      "allOf": [
        {"$ref": "#/components/schemas/ShareLink"},
        {"type": "object", "required": ["token", "url"], "properties": {"token": {"type": "string", "description": "Shown once."}, "url": {"type": "string", "description": "/s/<token>: the visitor's page."}}}
      ]
    },
    "OpenLink": {
      "type": "object", "required": ["token"],
      "properties": {"token": {"type": "string"}, "password": {"type": "string"}}
    },
    "OpenedLink": {
      "type": "object", "required": ["gallery", "galleryName", "role", "allowDownload", "showMetadata"],
      "properties": {
        "gallery": {"$ref": "#/components/schemas/Id"}, "galleryName": {"type": "string"}, "role": {"$ref": "#/components/schemas/LinkRole"},
        "allowDownload": {"type": "boolean"}, "showMetadata": {"type": "boolean"}
      }
    },
    "URLDrop": {
      "type": "object", "required": ["url"],
      "properties": {"url": {"type": "string"}, "title": {"type": "string"}, "to": {"$ref": "#/components/schemas/Destination"}}
    },
    "Readiness": {
      "type": "object", "required": ["database", "images"],
      "properties": {"database": {"const": "ok"}, "images": {"const": "ok"}}
    }
  }
}
"""#
}
