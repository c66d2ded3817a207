// Package embedded runs a Temporal server and its Web UI inside the hookd
// process, persisting to SQLite files in a data directory, so `hookd dev`
// needs nothing else installed and keeps its work across restarts; or,
// with Options.Postgres, to a PostgreSQL server.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	uiserver "github.com/temporalio/ui-server/v2/server"
	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	uioptions "github.com/temporalio/ui-server/v2/server/server_options"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/server/common/authorization"
	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/common/membership/static"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	"go.temporal.io/server/common/primitives"
	sqliteschema "go.temporal.io/server/schema/sqlite"
	"go.temporal.io/server/temporal"

	"github.com/hookd/hookd/internal/freeport"
)

// Options configures the embedded server.
type Options struct {
	// DataDir holds the SQLite files. Required without Postgres.
	DataDir string
	// Postgres, if set, persists Temporal in PostgreSQL instead of SQLite
	// files in DataDir; the SQLite tuning does not apply to it.
	Postgres *Postgres
	// FrontendAddr is the gRPC address clients and the temporal CLI use,
	// e.g. 127.0.0.1:7233. Required.
	FrontendAddr string
	// Namespace is created on first start. Required.
	Namespace string
	// UIAddr is where the Web UI listens; empty means no UI.
	UIAddr string
	// CodecEndpoint, if set, is the codec server the Web UI decodes
	// payloads with (hookd's /codec), so it shows them in plaintext.
	CodecEndpoint string
	// SearchAttributes are registered when the namespace is created.
	SearchAttributes map[string]enumspb.IndexedValueType
	// Logger receives the server's logs at LogLevel and above.
	Logger   *slog.Logger
	LogLevel slog.Level
	// HistoryShards is the number of history shards of new persistence
	// (zero: DefaultShards on SQLite, DefaultPostgresShards on
	// PostgreSQL). Every workflow lives on one shard, and a shard's
	// writes are serialised, so more shards let a server persisting to
	// PostgreSQL work on more deliveries at once. The count is fixed when
	// the persistence is created: existing persistence keeps its count,
	// and a count set here that differs stops the server with an error
	// saying so.
	HistoryShards int
	// Tuning departs from the measured defaults, to measure other settings.
	Tuning Tuning
}

// Tuning holds the embedded server's performance settings that the
// benchmark can vary; the zero value is the measured default.
type Tuning struct {
	// AllVisibilityIndexes keeps every index Temporal's visibility schema
	// creates in a new SQLite data directory, and on PostgreSQL creates
	// again those dropped before. By default the embedded server drops
	// the ones no hookd or Web UI query uses (see keptVisibilityIndexes).
	AllVisibilityIndexes bool
	// StockFTSTrigger keeps Temporal's full-text update trigger as shipped,
	// rewriting both full-text tables on every visibility update. By
	// default it runs only when a full-text column changed.
	StockFTSTrigger bool
	// NoStatementCache leaves Temporal's SQLite plugin compiling every
	// statement on each call. By default each connection keeps its
	// statements prepared (cacheStatements).
	NoStatementCache bool
	// VisibilityAutocommit commits each write to the SQLite visibility
	// file on its own, as Temporal's plugin does. By default writes made
	// at once share a commit (commitGroup); it needs the statement cache.
	VisibilityAutocommit bool
	// StockExecutionStore runs Temporal's execution store as shipped. By
	// default a run's first read after its creation is answered from what
	// the creation wrote (newRuns), the workflow-task timeout timers it
	// was created with are deleted when it closes (startTimeouts), and a
	// run's new history is written in the run's transaction
	// (historyInTxPrefix).
	StockExecutionStore bool
	// StockVisibilityColumns keeps, on PostgreSQL, the visibility
	// table's generated columns as Temporal's schema ships them. By
	// default they are plain columns a trigger fills from the same
	// expressions (fillPostgresVisibilityColumns): PostgreSQL prepares a
	// generated column's expression for every statement that writes the
	// table, a trigger's once per connection.
	StockVisibilityColumns bool
	// Dynamic overrides Temporal dynamic-config keys (for instance
	// "system.enableActivityEagerExecution": true) on top of the defaults.
	Dynamic map[string]any
}

// Server is a running embedded Temporal server (and Web UI).
type Server struct {
	temporal temporal.Server
	ui       *uiserver.Server
	uiDone   chan error
	opts     Options
	shards   int       // history shards, as the persistence holds them
	lock     *dataLock // the data dir's, on SQLite
}

// Validate checks the fields Start needs: DataDir (or Postgres),
// FrontendAddr and Namespace.
func (opts Options) Validate() error {
	switch {
	case opts.DataDir == "" && opts.Postgres == nil:
		return errors.New("embedded temporal: missing data dir")
	case opts.FrontendAddr == "":
		return errors.New("embedded temporal: missing frontend address")
	case opts.Namespace == "":
		return errors.New("embedded temporal: missing namespace")
	}
	return nil
}

// Start validates the options, prepares the SQLite files, holding the
// data dir's lock until Stop (or the PostgreSQL databases), and starts
// the server and the UI. It returns once the frontend accepts
// connections.
func Start(opts Options) (_ *Server, err error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	host, port, err := splitHostPort(opts.FrontendAddr)
	if err != nil {
		return nil, fmt.Errorf("temporal address: %w", err)
	}
	for _, addr := range []string{opts.FrontendAddr, opts.UIAddr} {
		if err := CheckFree(addr); err != nil {
			return nil, err
		}
	}
	var lock *dataLock
	if opts.Postgres == nil {
		if lock, err = lockDataDir(opts.DataDir, opts.Logger); err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				lock.Release()
			}
		}()
		if err := SecureDataDir(opts.DataDir, opts.Logger); err != nil {
			return nil, err
		}
	}
	conf, err := buildConfig(opts, host, port)
	if err != nil {
		return nil, err
	}
	serverOpts := serverOptions(opts, conf)
	if !opts.Tuning.StockExecutionStore {
		serverOpts = append(serverOpts, temporal.WithPersistenceFactoryProvider(persistenceProvider()))
	}
	srv, err := temporal.NewServer(serverOpts...)
	if err != nil {
		return nil, fmt.Errorf("build temporal server: %w", err)
	}
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("start temporal server: %w", err)
	}
	if opts.Postgres == nil {
		// The databases SQLite just created got the umask's mode; their
		// journals take the database's.
		if err := SecureDataDir(opts.DataDir, opts.Logger); err != nil {
			_ = srv.Stop()
			return nil, err
		}
	}
	shards, err := shardCount(opts.FrontendAddr, opts.HistoryShards)
	if err != nil {
		_ = srv.Stop()
		return nil, err
	}
	s := &Server{temporal: srv, opts: opts, shards: shards, lock: lock}
	if opts.UIAddr != "" {
		if err := s.startUI(); err != nil {
			_ = srv.Stop()
			return nil, err
		}
	}
	return s, nil
}

// FrontendAddr is the gRPC address of the frontend.
func (s *Server) FrontendAddr() string { return s.opts.FrontendAddr }

// HistoryShards is the server's history shard count, as its persistence
// holds it.
func (s *Server) HistoryShards() int { return s.shards }

// Stop stops the UI and the server, and releases the data dir.
func (s *Server) Stop() {
	if s.ui != nil {
		s.ui.Stop()
	}
	if err := s.temporal.Stop(); err != nil {
		s.opts.Logger.Warn("stop temporal server", "error", err)
	}
	s.lock.Release()
}

func (s *Server) startUI() error {
	host, port, err := splitHostPort(s.opts.UIAddr)
	if err != nil {
		return fmt.Errorf("ui address: %w", err)
	}
	s.ui = uiserver.NewServer(uioptions.WithConfigProvider(&uiconfig.Config{
		Host:                host,
		Port:                port,
		TemporalGRPCAddress: s.opts.FrontendAddr,
		EnableUI:            true,
		DefaultNamespace:    s.opts.Namespace,
		CORS:                uiconfig.CORS{CookieInsecure: true},
		HideLogs:            true,
		DisableNewsFetch:    true,
		Codec:               uiconfig.Codec{Endpoint: s.opts.CodecEndpoint},
	}))
	s.uiDone = make(chan error, 1)
	go func() { s.uiDone <- s.ui.Start() }()
	// Start blocks while serving; an early return is a failure to listen.
	select {
	case err := <-s.uiDone:
		return fmt.Errorf("start web ui: %w", err)
	case <-time.After(200 * time.Millisecond):
		return nil
	}
}

// CheckFree returns the listen error, with its cause (address in use,
// permission denied, ...), if addr cannot be listened on. An empty addr is
// free.
func CheckFree(addr string) error {
	if addr == "" {
		return nil
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return ListenError(addr, err)
	}
	return l.Close()
}

// ListenError is a failed listen on addr, naming the address once and the
// cause ("address already in use", "permission denied"), without the
// "listen tcp <addr>: bind:" net.Listen wraps it in; errors.Is still finds
// the cause.
func ListenError(addr string, err error) error {
	var se *os.SyscallError
	if errors.As(err, &se) {
		err = se.Err
	}
	return fmt.Errorf("listen on %s: %w", addr, err)
}

func splitHostPort(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return "", 0, fmt.Errorf("port %q: %w", p, err)
	}
	return host, port, nil
}

// sqliteConfig describes one SQLite file, tuned as docs/architecture.md
// notes: WAL with synchronous=NORMAL. Pragmas go without a leading
// underscore (with one, SQLite ignores them). Temporary storage stays in
// files: in memory, a statement journal (commitGroup's writes each keep
// one) costs the pure-Go SQLite an allocation of fresh pages for every
// chunk, three times the CPU of the file's writes.
func sqliteConfig(path string) *config.SQL {
	return &config.SQL{
		PluginName:   sqliteplugin.PluginName,
		DatabaseName: path,
		ConnectAttributes: map[string]string{
			"mode":         "rwc",
			"journal_mode": "wal",
			"synchronous":  "normal",
			"busy_timeout": "10000",
		},
	}
}

// prepare creates the schema of a new SQLite file.
func prepare(sql *config.SQL) error {
	if fi, err := os.Stat(sql.DatabaseName); err == nil && fi.Size() > 0 {
		return nil // set up before (an empty file is createPrivate's)
	}
	if err := sqliteschema.SetupSchema(sql); err != nil {
		return fmt.Errorf("set up schema of %s: %w", filepath.Base(sql.DatabaseName), err)
	}
	return nil
}

// prepareStores returns the main and visibility stores' configurations,
// their databases created and their schemas current: PostgreSQL's with
// Options.Postgres, else SQLite files in the data dir with their tuning.
func prepareStores(opts Options) (main, vis *config.SQL, err error) {
	if opts.Postgres != nil {
		level := new(slog.LevelVar)
		level.Set(opts.LogLevel)
		return preparePostgres(context.Background(), *opts.Postgres, opts.Tuning, slogLogger{log: opts.Logger, level: level})
	}
	return prepareSQLite(opts)
}

// createPrivate creates path with DataFileMode if it does not exist; an
// existing file is left as it is (SecureDataDir fixes its mode).
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, DataFileMode)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", filepath.Base(path), err)
	}
	return f.Close()
}

// prepareSQLite prepares the SQLite files, tuned as docs/architecture.md
// notes.
func prepareSQLite(opts Options) (*config.SQL, *config.SQL, error) {
	// Executions and visibility live in separate files: visibility writes
	// then stop contending with history writes for one SQLite lock.
	main := sqliteConfig(filepath.Join(opts.DataDir, "temporal.db"))
	vis := sqliteConfig(filepath.Join(opts.DataDir, "temporal-visibility.db"))
	// One connection per file, the plugin's default: SQLite has one write
	// lock per file, and more connections would only contend for it
	// (docs/performance.md).
	for _, sql := range []*config.SQL{main, vis} {
		// Created private before SQLite opens it, so its journal files
		// (which SQLite gives the database's mode) are private too.
		if err := createPrivate(sql.DatabaseName); err != nil {
			return nil, nil, err
		}
		if err := prepare(sql); err != nil {
			return nil, nil, err
		}
	}
	n, err := tuneVisibility(context.Background(), vis.DatabaseName, opts.Tuning)
	if err != nil {
		return nil, nil, err
	}
	if n > 0 {
		opts.Logger.Debug("dropped unused visibility indexes", "count", n)
	}
	if !opts.Tuning.NoStatementCache {
		for _, sql := range []*config.SQL{main, vis} {
			if err := cacheStatements(sql, sql == vis && !opts.Tuning.VisibilityAutocommit); err != nil {
				return nil, nil, err
			}
		}
	}
	return main, vis, nil
}

func buildConfig(opts Options, host string, port int) (*config.Config, error) {
	main, vis, err := prepareStores(opts)
	if err != nil {
		return nil, err
	}
	if !opts.Tuning.StockExecutionStore {
		main = withHistoryInTx(main) // with persistenceProvider's executionStore
	}
	ns, err := sqliteschema.NewNamespaceConfig("active", opts.Namespace, false, opts.SearchAttributes)
	if err != nil {
		return nil, fmt.Errorf("namespace config: %w", err)
	}
	// The SQLite helper writes the namespace through Temporal's generic SQL
	// plugin interface, so it serves PostgreSQL as well: the namespace and
	// its search attributes exist before the frontend loads its cache.
	if err := sqliteschema.CreateNamespaces(main, ns); err != nil {
		return nil, fmt.Errorf("create namespace: %w", err)
	}

	conf := &config.Config{}
	conf.Global.Membership.MaxJoinDuration = 30 * time.Second
	conf.Global.Membership.BroadcastAddress = host
	conf.Persistence.DefaultStore = "main"
	conf.Persistence.VisibilityStore = "visibility"
	conf.Persistence.NumHistoryShards = int32(shardsFor(opts))
	conf.Persistence.DataStores = map[string]config.DataStore{"main": {SQL: main}, "visibility": {SQL: vis}}
	conf.ClusterMetadata = &cluster.Config{
		FailoverVersionIncrement: 10,
		MasterClusterName:        "active",
		CurrentClusterName:       "active",
		ClusterInformation: map[string]cluster.ClusterInformation{
			"active": {Enabled: true, InitialFailoverVersion: 1, RPCAddress: opts.FrontendAddr},
		},
	}
	conf.DCRedirectionPolicy.Policy = "noop"
	conf.Services = map[string]config.Service{}
	for _, name := range []string{"frontend", "history", "matching", "worker"} {
		p := port
		if name != "frontend" {
			if p, err = freeport.Port(host); err != nil {
				return nil, err
			}
		}
		conf.Services[name] = config.Service{RPC: config.RPC{GRPCPort: p, BindOnIP: host}}
	}
	conf.Archival.History.State = "disabled"
	conf.Archival.Visibility.State = "disabled"
	conf.NamespaceDefaults.Archival.History.State = "disabled"
	conf.NamespaceDefaults.Archival.Visibility.State = "disabled"
	conf.PublicClient.HostPort = opts.FrontendAddr
	return conf, nil
}

// historyCacheSize bounds the history service's workflow cache
// (docs/performance.md, Levers).
const historyCacheSize = 2048

// queueReaderRPS bounds the reads of the timer and transfer queues per
// shard.
const queueReaderRPS = 100

// timerMaxTimeShift is how far past now the timer queue's reader reads
// ahead (Temporal: a second). A timer written due before the last read's
// horizon is moved to it: with a second, every timer shorter than about a
// second (a rate-limited delivery's start delay at the head of its
// backlog, a wake-up just ahead) fired up to a second late, and the
// deliveries of several workers whose slots had passed went together. 50
// ms is within a slot's lead (store.MaxLead).
const timerMaxTimeShift = 50 * time.Millisecond

func serverOptions(opts Options, conf *config.Config) []temporal.ServerOption {
	hosts := map[primitives.ServiceName]static.Hosts{}
	for name, svc := range map[primitives.ServiceName]string{
		primitives.FrontendService: "frontend",
		primitives.HistoryService:  "history",
		primitives.MatchingService: "matching",
		primitives.WorkerService:   "worker",
	} {
		rpc := conf.Services[svc].RPC
		hosts[name] = static.SingleLocalHost(net.JoinHostPort(rpc.BindOnIP, strconv.Itoa(rpc.GRPCPort)))
	}
	level := new(slog.LevelVar)
	level.Set(opts.LogLevel)
	logger := slogLogger{log: opts.Logger, level: level}
	dyn := dynamicconfig.StaticClient{
		dynamicconfig.FrontendMaxNamespaceVisibilityRPSPerInstance.Key(): 100,
		// One task-queue partition: on one node more partitions only split
		// the pollers (docs/architecture.md).
		dynamicconfig.MatchingNumTaskqueueReadPartitions.Key():  1,
		dynamicconfig.MatchingNumTaskqueueWritePartitions.Key(): 1,
		// Bulk redrives are batch operations; allow a few at once.
		dynamicconfig.FrontendMaxConcurrentBatchOperationPerNamespace.Key(): 10,
		// By default the history service caches every workflow it touched
		// in the last hour, up to 128,000, so a parked backlog's mutable
		// state (about 20 KB each) would stay in memory. In-flight
		// deliveries need a few hundred entries; an evicted one is read
		// back from SQLite when it wakes.
		dynamicconfig.HistoryCacheHostLevelMaxSize.Key(): historyCacheSize,
		// hookd stores no payload outside history; counting external
		// payloads would walk every payload of every event batch written
		// (docs/performance.md).
		dynamicconfig.ExternalPayloadsEnabled.Key(): false,
		// The timer and transfer queues' readers poll persistence at most
		// 20 times a second per shard by default. Tasks due in a steady
		// stream (the start timers of a rate-limited endpoint's backlog,
		// one an interval) each ask for a read; held to 20, the workflow
		// tasks they schedule reached the worker seconds late. 100 is
		// enough for that and costs saturation nothing; the visibility
		// queue keeps 20, as its reads batch at saturation
		// (docs/performance.md).
		dynamicconfig.TransferProcessorMaxPollRPS.Key(): queueReaderRPS,
		dynamicconfig.TimerProcessorMaxPollRPS.Key():    queueReaderRPS,
		// Timers fire within timerMaxTimeShift of when they are due.
		dynamicconfig.TimerProcessorMaxTimeShift.Key(): timerMaxTimeShift,
	}
	for k, v := range opts.Tuning.Dynamic {
		dyn[dynamicconfig.MakeKey(k)] = v
	}
	return []temporal.ServerOption{
		temporal.WithConfig(conf),
		temporal.ForServices(temporal.DefaultServices),
		temporal.WithStaticHosts(hosts),
		temporal.WithLogger(logger),
		temporal.WithAuthorizer(authorization.NewNoopAuthorizer()),
		temporal.WithClaimMapper(func(*config.Config) authorization.ClaimMapper { return authorization.NewNoopClaimMapper() }),
		temporal.WithDynamicConfigClient(dyn),
	}
}
