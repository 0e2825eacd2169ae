// The system SQLite (libsqlite3-dev on Debian/Ubuntu; the SDK's on Apple platforms), used only
// by the benchmark harness as the peer the journal is compared with.
#include <sqlite3.h>
