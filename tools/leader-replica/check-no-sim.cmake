# cmake -DNM=<nm> -DBINARY=<leader-replica> -P check-no-sim.cmake: fails when the binary defines a
# symbol of leader_sim's namespaces (engine/sim: baseline, demo, embedded, faults). Run after each
# link of a replica built without fault injection (tools/leader-replica/CMakeLists.txt).
execute_process(COMMAND ${NM} -C --defined-only ${BINARY}
    OUTPUT_VARIABLE symbols ERROR_VARIABLE errors RESULT_VARIABLE status)
if(NOT status EQUAL 0)
    message(FATAL_ERROR "check-no-sim: ${NM} could not read ${BINARY}: ${errors}")
endif()
string(REGEX MATCHALL "[^\n]*leader::(baseline|demo|embedded|faults)::[^\n]*" found "${symbols}")
list(LENGTH found count)
if(count GREATER 0)
    list(SUBLIST found 0 5 first)
    list(JOIN first "\n  " first)
    message(FATAL_ERROR "check-no-sim: ${BINARY} is to be built without fault injection, yet it "
            "defines ${count} symbols of leader_sim (engine/sim), e.g.:\n  ${first}")
endif()
