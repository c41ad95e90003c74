-- +goose Up
-- A brand's people, by email address: owners change things, viewers look.
CREATE TABLE brand_members (
    brand_id   TEXT NOT NULL REFERENCES brands (id),
    email      TEXT NOT NULL,
    role       TEXT NOT NULL CHECK (role IN ('owner', 'viewer')),
    digest     INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (brand_id, email)
);
CREATE INDEX brand_members_email ON brand_members (email);

-- A link asked for by email signs its member in (brand_id ''), in the
-- browser whose cookie hashes to binding.
ALTER TABLE dashboard_links ADD COLUMN email TEXT NOT NULL DEFAULT '';
ALTER TABLE dashboard_links ADD COLUMN binding BLOB;

-- A member's sessions, listed for them by device and last use; the
-- expiry slides with use.
ALTER TABLE dashboard_sessions ADD COLUMN email TEXT NOT NULL DEFAULT '';
ALTER TABLE dashboard_sessions ADD COLUMN user_agent TEXT NOT NULL DEFAULT '';
ALTER TABLE dashboard_sessions ADD COLUMN ip TEXT NOT NULL DEFAULT '';
ALTER TABLE dashboard_sessions ADD COLUMN last_seen INTEGER NOT NULL DEFAULT 0;
CREATE INDEX dashboard_sessions_email ON dashboard_sessions (email);

-- Who changed or signed into what, kept as long as the events.
CREATE TABLE audit_events (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    brand_id TEXT NOT NULL,
    at       INTEGER NOT NULL,
    actor    TEXT NOT NULL,
    ip       TEXT NOT NULL,
    action   TEXT NOT NULL,
    detail   TEXT NOT NULL
);
CREATE INDEX audit_events_brand ON audit_events (brand_id, id);
CREATE INDEX audit_events_at ON audit_events (at);

-- One weekly digest per member and week: the node whose insert wins sends
-- it. unsubscribe is the hash of the token in its one-click link.
CREATE TABLE digest_sends (
    brand_id    TEXT NOT NULL,
    email       TEXT NOT NULL,
    week        TEXT NOT NULL,
    unsubscribe BLOB NOT NULL UNIQUE,
    claimed_at  INTEGER NOT NULL,
    PRIMARY KEY (brand_id, email, week)
);

-- Passkeys (WebAuthn) of members, by credential id: a second way in
-- after a first sign-in by email. user_handle is the random id the
-- authenticator keeps for the member; credential is the library's record
-- (public key, sign count, flags) as JSON.
CREATE TABLE passkeys (
    id          BLOB PRIMARY KEY,
    email       TEXT NOT NULL,
    user_handle BLOB NOT NULL,
    name        TEXT NOT NULL,
    credential  BLOB NOT NULL,
    created_at  INTEGER NOT NULL,
    last_used   INTEGER NOT NULL
);
CREATE INDEX passkeys_email ON passkeys (email);
CREATE INDEX passkeys_user_handle ON passkeys (user_handle);
-- A WebAuthn ceremony between its two requests, by the hash of the
-- cookie or session it belongs to, so that any node finishes it.
CREATE TABLE webauthn_ceremonies (
    hash       BLOB PRIMARY KEY,
    data       BLOB NOT NULL,
    expires_at INTEGER NOT NULL
);

-- +goose Down
DROP TABLE webauthn_ceremonies;
DROP TABLE passkeys;
DROP TABLE digest_sends;
DROP TABLE audit_events;
DROP INDEX dashboard_sessions_email;
ALTER TABLE dashboard_sessions DROP COLUMN last_seen;
ALTER TABLE dashboard_sessions DROP COLUMN ip;
ALTER TABLE dashboard_sessions DROP COLUMN user_agent;
ALTER TABLE dashboard_sessions DROP COLUMN email;
ALTER TABLE dashboard_links DROP COLUMN binding;
ALTER TABLE dashboard_links DROP COLUMN email;
DROP TABLE brand_members;
