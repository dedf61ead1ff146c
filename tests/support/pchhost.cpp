// The host of a precompiled header for the tests (leader_test_pch in tests/CMakeLists.txt):
// CMake needs one source to build it from.
