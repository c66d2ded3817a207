package sqlstore

// Dialect is what differs between the SQL databases a Store runs on.
type Dialect struct {
	// Name names the database in errors, e.g. "sqlite".
	Name string
	// BlobType is the column type for binary values, e.g. "BLOB".
	BlobType string
	// MigrationLock, when set, is the first statement of the migration
	// transaction; it keeps processes that open the database at the same
	// time from migrating it twice.
	MigrationLock string
	// LockRow, appended to a SELECT in a transaction, locks the rows read
	// until commit (" FOR UPDATE"); empty where transactions already
	// serialise writers (SQLite's single writer).
	LockRow string
	// SkipLocked, appended to a SELECT in a transaction, locks the rows
	// read and skips those another transaction holds (" FOR UPDATE SKIP
	// LOCKED"): concurrent outbox claims take distinct rows. Empty where
	// writers are serialised.
	SkipLocked string
	// AfterErase, when set, runs after an expunge has overwritten an
	// event's payload and key, to drop the database's own copies of
	// the old row (SQLite's write-ahead log); empty where nothing can
	// be done from SQL (PostgreSQL's dead tuples wait for VACUUM).
	AfterErase string
	// WrittenRows, when set, is a query of the rows the store's writer
	// connection has written since it opened (WrittenRows): SQLite's
	// total_changes(), where the store has one writer connection.
	WrittenRows string
	// WritableCTEs says the database runs an INSERT inside WITH
	// (PostgreSQL): an event and its deliveries are then claimed in one
	// statement, one round trip, where otherwise a transaction of four
	// statements claims them.
	WritableCTEs bool
}
