#pragma once

namespace leader::console {

// Sets the C library's message category to English (LC_MESSAGES "C"), leaving numbers, dates and
// collation to the user's locale. QApplication takes every category from the environment, and
// then libpq's and the C library's messages arrive in the user's language ("Verbindung zum
// Server ... fehlgeschlagen" under de_DE.UTF-8), while the engine tells a refused connect from a
// closed session by their English texts and the console speaks English: a refused connect read
// "the server closed the connection". Call it once, after QApplication and before any thread.
void useEnglishSystemMessages();

} // namespace leader::console
