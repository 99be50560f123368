package sqlite

// SchemaVersion is the schema_migrations version of the layout written here: the last migration of
// operator-registry v1.72 (013_rm_truncated_deprecations). opm's migrator treats it as up to date.
const SchemaVersion = 13

// schemaStatements create the final (version 13) layout of an index.db, table by table as
// docs/sqlite-fbc-mapping.md §1.4 describes it: same tables, column order, declared types, keys,
// foreign keys (with their ON DELETE and DEFERRABLE clauses), the `pk` index and the two api cleanup
// triggers, so that opm's queries, its migrator and later `opm registry add/rm` runs see exactly
// what a loader-built database holds. The statements come in the order opm's migrations create the
// objects.
var schemaStatements = []string{
	`CREATE TABLE schema_migrations (
	version bigint NOT NULL,
	timestamp DATETIME DEFAULT CURRENT_TIMESTAMP
)`,
	`CREATE TABLE api (
	group_name TEXT,
	version TEXT,
	kind TEXT,
	plural TEXT NOT NULL,
	PRIMARY KEY(group_name, version, kind)
)`,
	// csv and bundle are declared TEXT but hold BLOBs (apimachinery JSON, see §1.5).
	`CREATE TABLE operatorbundle (
	name TEXT PRIMARY KEY,
	csv TEXT,
	bundle TEXT,
	bundlepath TEXT, skiprange TEXT, version TEXT, replaces TEXT, skips TEXT, substitutesfor TEXT)`,
	// The composite foreign key is immediate: insert the package after its channels.
	`CREATE TABLE package (
	name TEXT PRIMARY KEY,
	default_channel TEXT,
	FOREIGN KEY(name, default_channel) REFERENCES channel(package_name,name) ON DELETE CASCADE
)`,
	// No foreign key to package (migration 004 dropped it).
	`CREATE TABLE channel (
	name TEXT,
	package_name TEXT,
	head_operatorbundle_name TEXT,
	PRIMARY KEY(name, package_name),
	FOREIGN KEY(head_operatorbundle_name) REFERENCES operatorbundle(name) ON DELETE CASCADE
)`,
	// No foreign key to operatorbundle: rows for skipped names without a bundle are normal.
	`CREATE TABLE channel_entry (
	entry_id INTEGER PRIMARY KEY,
	channel_name TEXT,
	package_name TEXT,
	operatorbundle_name TEXT,
	replaces INTEGER,
	depth INTEGER,
	FOREIGN KEY(replaces) REFERENCES channel_entry(entry_id) DEFERRABLE INITIALLY DEFERRED,
	FOREIGN KEY(channel_name, package_name) REFERENCES channel(name, package_name) ON DELETE CASCADE
)`,
	`CREATE TABLE related_image (
	image TEXT,
	operatorbundle_name TEXT,
	FOREIGN KEY(operatorbundle_name) REFERENCES operatorbundle(name) ON DELETE CASCADE
)`,
	`CREATE TABLE "api_provider" (
	group_name TEXT,
	version TEXT,
	kind TEXT,
	operatorbundle_name TEXT,
	operatorbundle_version TEXT,
	operatorbundle_path TEXT,
	FOREIGN KEY(operatorbundle_name, operatorbundle_version, operatorbundle_path) REFERENCES operatorbundle(name, version, bundlepath) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
	FOREIGN KEY(group_name, version, kind) REFERENCES api(group_name, version, kind) ON DELETE CASCADE
)`,
	`CREATE TABLE "api_requirer" (
	group_name TEXT,
	version TEXT,
	kind TEXT,
	operatorbundle_name TEXT,
	operatorbundle_version TEXT,
	operatorbundle_path TEXT,
	FOREIGN KEY(operatorbundle_name, operatorbundle_version, operatorbundle_path) REFERENCES operatorbundle(name, version, bundlepath) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
	FOREIGN KEY(group_name, version, kind) REFERENCES api(group_name, version, kind) ON DELETE CASCADE
)`,
	`CREATE UNIQUE INDEX pk ON operatorbundle(name, version, bundlepath)`,
	// The cleanup triggers keep opm's behaviour, defect included (§1.6 item 5: the NOT EXISTS runs
	// over a cross join, so it is true whenever either table is empty), so that a later
	// `opm registry rm` on the written file does what it does on a loader-built one.
	`CREATE TRIGGER api_provider_cleanup
	AFTER DELETE ON api_provider
	WHEN NOT EXISTS (SELECT 1 FROM api_provider JOIN api_requirer WHERE
		(api_provider.group_name = OLD.group_name AND api_provider.version = OLD.version AND api_provider.kind = OLD.kind) OR
		(api_requirer.group_name = OLD.group_name AND api_requirer.version = OLD.version AND api_requirer.kind = OLD.kind))
	BEGIN
		DELETE FROM api WHERE group_name = OLD.group_name AND version = OLD.version AND kind = OLD.kind;
	END`,
	`CREATE TRIGGER api_requirer_cleanup
	AFTER DELETE ON api_requirer
	WHEN NOT EXISTS (SELECT 1 FROM api_provider JOIN api_requirer WHERE
		(api_provider.group_name = OLD.group_name AND api_provider.version = OLD.version AND api_provider.kind = OLD.kind) OR
		(api_requirer.group_name = OLD.group_name AND api_requirer.version = OLD.version AND api_requirer.kind = OLD.kind))
	BEGIN
		DELETE FROM api WHERE group_name = OLD.group_name AND version = OLD.version AND kind = OLD.kind;
	END`,
	// dependencies.value holds BLOBs when the loader wrote it (raw json.RawMessage).
	`CREATE TABLE dependencies (
	type TEXT,
	value TEXT,
	operatorbundle_name TEXT,
	operatorbundle_version TEXT,
	operatorbundle_path TEXT,
	FOREIGN KEY(operatorbundle_name, operatorbundle_version, operatorbundle_path) REFERENCES operatorbundle(name, version, bundlepath) ON DELETE CASCADE
)`,
	`CREATE TABLE properties (
	type TEXT,
	value TEXT,
	operatorbundle_name TEXT,
	operatorbundle_version TEXT,
	operatorbundle_path TEXT,
	FOREIGN KEY(operatorbundle_name, operatorbundle_version, operatorbundle_path) REFERENCES operatorbundle(name, version, bundlepath) ON DELETE CASCADE
)`,
	// No foreign key on purpose (migration 012): truncation keeps names of removed bundles.
	`CREATE TABLE deprecated (
	operatorbundle_name TEXT PRIMARY KEY
)`,
}
