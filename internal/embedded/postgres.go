package embedded

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/log/tag"
	pgplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/postgresql"
	"go.temporal.io/server/tools/common/schema"
	toolsql "go.temporal.io/server/tools/sql"

	"github.com/hookd/hookd/internal/pgadmin"
)

// Postgres puts the embedded server's persistence in PostgreSQL instead of
// SQLite files: the main store and visibility in two databases of one
// server, each created with its schema on first start and brought to the
// schema version this server ships on every start.
type Postgres struct {
	// URL is postgres://user:password@host:port/database?sslmode=...; its
	// database (default "temporal") holds the main store. Query
	// parameters are passed to the driver. The user must be allowed to
	// create databases when they are missing.
	URL string
	// VisibilityDatabase holds visibility (default: the main database's
	// name with "_visibility" appended).
	VisibilityDatabase string
	// MaxConns bounds each service's pool of connections to the main
	// database (zero: 20); VisibilityMaxConns to visibility (zero: 2).
	// Each of the server's four services has its own pools.
	MaxConns, VisibilityMaxConns int
}

// Schemas embedded in go.temporal.io/server/schema, as temporal-sql-tool
// names them with --schema-name.
const (
	pgMainSchema       = "postgresql/v12/temporal"
	pgVisibilitySchema = "postgresql/v12/visibility"
	pgDefaultDatabase  = "temporal"
	pgDefaultPort      = "5432"
)

// Connection pools per store and service, as in Temporal's
// config/development-postgres12.yaml. Each of the four services opens its
// own pool per store, so at most 4 × (20 + 2) connections.
const (
	pgMainMaxConns       = 20
	pgVisibilityMaxConns = 2
	pgMaxConnLifetime    = time.Hour
)

// pgPlugin is Temporal's PostgreSQL plugin on pgx, which keeps each
// connection's statements prepared; the lib/pq plugin ("postgres12") has
// PostgreSQL parse and plan every statement again. Both read and write
// the same schema, so persistence created with either opens with this
// one. Behind a pooler in transaction mode, which cannot keep prepared
// statements, add default_query_exec_mode=simple_protocol to the URL
// (docs/operations.md).
const pgPlugin = pgplugin.PluginNamePGX

// Redacted is u with its password masked, safe to log or print.
func (p Postgres) Redacted() string {
	u, err := url.Parse(p.URL)
	if err != nil {
		return "(unparsable PostgreSQL URL)"
	}
	return u.Redacted()
}

// sqlConfigs parses p into the two stores' configurations.
func (p Postgres) sqlConfigs() (main, vis *config.SQL, err error) {
	u, err := url.Parse(p.URL)
	if err != nil {
		// url's errors repeat the URL, password and all.
		return nil, nil, errors.New("PostgreSQL URL: cannot parse it")
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return nil, nil, fmt.Errorf("PostgreSQL URL: scheme %q, want postgres://", u.Scheme)
	}
	host, port := u.Hostname(), u.Port()
	if host == "" {
		return nil, nil, errors.New("PostgreSQL URL: missing host")
	}
	if port == "" {
		port = pgDefaultPort
	}
	db := strings.TrimPrefix(u.Path, "/")
	if db == "" {
		db = pgDefaultDatabase
	}
	visDB := p.VisibilityDatabase
	if visDB == "" {
		visDB = db + "_visibility"
	}
	if visDB == db {
		return nil, nil, errors.New("PostgreSQL: the visibility database must differ from the main one")
	}
	attrs := map[string]string{}
	for k, v := range u.Query() {
		attrs[k] = v[len(v)-1]
	}
	password, _ := u.User.Password()
	store := func(name string, maxConns int) *config.SQL {
		return &config.SQL{
			PluginName:        pgPlugin,
			DatabaseName:      name,
			ConnectAddr:       net.JoinHostPort(host, port),
			ConnectProtocol:   "tcp",
			User:              u.User.Username(),
			Password:          password,
			ConnectAttributes: attrs,
			MaxConns:          maxConns,
			MaxIdleConns:      maxConns,
			MaxConnLifetime:   pgMaxConnLifetime,
		}
	}
	return store(db, cmp.Or(p.MaxConns, pgMainMaxConns)), store(visDB, cmp.Or(p.VisibilityMaxConns, pgVisibilityMaxConns)), nil
}

// preparePostgres creates the two databases if missing and sets up or
// updates their schemas, as temporal-sql-tool's create-database,
// setup-schema -v 0.0 and update-schema do. Unless t keeps them as
// shipped, it then drops the visibility indexes no hookd or Web UI query
// uses and fills the visibility table's generated columns by trigger;
// both are undone before a schema update (Temporal's scripts expect its
// own schema), and for good when t keeps them.
func preparePostgres(ctx context.Context, p Postgres, t Tuning, logger log.Logger) (main, vis *config.SQL, err error) {
	main, vis, err = p.sqlConfigs()
	if err != nil {
		return nil, nil, err
	}
	if err := pgadmin.CreateDatabases(ctx, p.URL, main.DatabaseName, vis.DatabaseName); err != nil {
		return nil, nil, err
	}
	if err := updateSchema(main, pgMainSchema, nil, logger); err != nil {
		return nil, nil, err
	}
	visDB, err := p.openDatabase(vis.DatabaseName)
	if err != nil {
		return nil, nil, err
	}
	defer visDB.Close()
	restoreIndexes := func() error {
		n, err := restorePostgresVisibilityIndexes(ctx, visDB)
		if n > 0 {
			logger.Info("created dropped visibility indexes again", tag.NewInt("count", n))
		}
		return err
	}
	restoreColumns := func() error {
		n, err := restorePostgresVisibilityColumns(ctx, visDB)
		if n > 0 {
			logger.Info("made filled visibility columns generated again", tag.NewInt("count", n))
		}
		return err
	}
	// The columns first: a dropped index's definition may name one.
	beforeUpdate := func() error {
		if err := restoreColumns(); err != nil {
			return err
		}
		return restoreIndexes()
	}
	if err := updateSchema(vis, pgVisibilitySchema, beforeUpdate, logger); err != nil {
		return nil, nil, err
	}
	if t.AllVisibilityIndexes {
		err = restoreIndexes()
	} else {
		var n int
		n, err = dropPostgresVisibilityIndexes(ctx, visDB)
		if n > 0 {
			logger.Debug("dropped unused visibility indexes", tag.NewInt("count", n))
		}
	}
	if err != nil {
		return nil, nil, err
	}
	if t.StockVisibilityColumns {
		return main, vis, restoreColumns()
	}
	n, err := fillPostgresVisibilityColumns(ctx, visDB)
	if n > 0 {
		logger.Debug("visibility columns filled by trigger", tag.NewInt("count", n))
	}
	return main, vis, err
}

// updateSchema brings cfg's database to the newest version of the
// embedded schema schemaName: a new database gets the version tables at
// 0.0, then every versioned change is applied in order, after
// beforeUpdate (when not nil); a database at the newest version is left
// alone.
func updateSchema(cfg *config.SQL, schemaName string, beforeUpdate func() error, logger log.Logger) error {
	conn, err := toolsql.NewConnection(cfg, logger)
	if err != nil {
		return fmt.Errorf("connect to database %s: %w", cfg.DatabaseName, err)
	}
	defer conn.Close()
	if err := schema.NewSetupSchemaTask(conn, &schema.SetupConfig{InitialVersion: "0.0"}, logger).Run(); err != nil {
		return fmt.Errorf("set up schema versioning of %s: %w", cfg.DatabaseName, err)
	}
	if beforeUpdate != nil {
		current, err := conn.ReadSchemaVersion()
		if err != nil {
			return fmt.Errorf("read schema version of %s: %w", cfg.DatabaseName, err)
		}
		newest, err := newestSchemaVersion(schemaName)
		if err != nil {
			return err
		}
		if versionLess(current, newest) {
			if err := beforeUpdate(); err != nil {
				return err
			}
		}
	}
	update := &schema.UpdateConfig{DBName: cfg.DatabaseName, SchemaName: schemaName}
	if err := schema.NewUpdateSchemaTask(conn, update, logger).Run(); err != nil {
		return fmt.Errorf("update schema of %s to %s: %w", cfg.DatabaseName, schemaName, err)
	}
	return nil
}
