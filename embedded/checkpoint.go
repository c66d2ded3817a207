package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"go.temporal.io/server/common/config"
)

// checkpointEvery is how often the background checkpointer copies the WAL
// into a database file. At ~170 deliveries/s the history file's WAL grows
// by a few MB a second; SQLite's own threshold (1000 pages, 4 MB) is
// reached about as often.
const checkpointEvery = time.Second

// checkpointer runs SQLite's WAL checkpoints of Temporal's files on a
// connection of its own, instead of the automatic checkpoint that SQLite
// runs inside whichever commit crosses 1000 pages of WAL. Temporal keeps
// one connection per file, so that commit's checkpoint, with its fsyncs,
// held up every other write of the server (docs/performance.md). Turning
// the automatic checkpoint off (wal_autocheckpoint=0 on the plugin's
// connection) changes no durability setting: the WAL and synchronous=NORMAL
// stay, a commit still reaches the WAL before it returns, and a WAL left by
// a crash is replayed when the file is opened again.
type checkpointer struct {
	log  *slog.Logger
	dbs  []*sql.DB
	stop context.CancelFunc
	done sync.WaitGroup
}

// noAutoCheckpoint turns SQLite's automatic checkpoint off on cfg's
// connections; startCheckpointer must then run.
func noAutoCheckpoint(cfg *config.SQL) {
	cfg.ConnectAttributes["wal_autocheckpoint"] = "0"
}

// startCheckpointer opens a connection to each file and checkpoints it
// every checkpointEvery, in PASSIVE mode: it copies what it can without
// waiting for, or blocking, Temporal's connection.
func startCheckpointer(log *slog.Logger, cfgs ...*config.SQL) (*checkpointer, error) {
	ctx, cancel := context.WithCancel(context.Background())
	c := &checkpointer{log: log, stop: cancel}
	for _, cfg := range cfgs {
		dsn, err := pluginDSN(cfg)
		if err != nil {
			c.close()
			return nil, err
		}
		db, err := sql.Open("sqlite", dsn)
		if err != nil {
			c.close()
			return nil, fmt.Errorf("open %s for checkpoints: %w", filepath.Base(cfg.DatabaseName), err)
		}
		db.SetMaxOpenConns(1)
		c.dbs = append(c.dbs, db)
		name := filepath.Base(cfg.DatabaseName)
		c.done.Go(func() { c.run(ctx, db, name) })
	}
	return c, nil
}

func (c *checkpointer) run(ctx context.Context, db *sql.DB, name string) {
	tick := time.NewTicker(checkpointEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if _, _, err := checkpoint(ctx, db, "PASSIVE"); err != nil && ctx.Err() == nil {
			c.log.Warn("sqlite checkpoint", "file", name, "error", err)
		}
	}
}

// checkpoint runs one checkpoint in mode; it returns the WAL's frames and
// how many of them are now in the database file.
func checkpoint(ctx context.Context, db *sql.DB, mode string) (walFrames, copied int, err error) {
	var busy int
	if err := db.QueryRowContext(ctx, "PRAGMA wal_checkpoint("+mode+")").Scan(&busy, &walFrames, &copied); err != nil {
		return 0, 0, fmt.Errorf("wal_checkpoint(%s): %w", mode, err)
	}
	return walFrames, copied, nil
}

// close stops the checkpoints and, once Temporal is stopped, copies the
// whole WAL into each file and empties it.
func (c *checkpointer) close() {
	c.stop()
	c.done.Wait()
	for _, db := range c.dbs {
		if _, _, err := checkpoint(context.Background(), db, "TRUNCATE"); err != nil {
			c.log.Warn("final sqlite checkpoint", "error", err)
		}
		_ = db.Close()
	}
}
