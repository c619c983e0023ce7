// atexit() handlers are part of the program's state: the precompiler renames the application's
// atexit to __c3_atexit, which records each handler (function addresses are fixed: executables
// are -no-pie) before registering it with libc, so a restarted process can register them again.
#pragma once

namespace c3::atexit_registry {

// Restart, before the program continues: registers the saved handlers with libc, in their
// original order (libc then runs them in reverse, as in the first run).
void register_saved();

}  // namespace c3::atexit_registry
