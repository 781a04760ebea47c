# Builds package_consumer against the sparse package and runs it on a scripted session.
#   cmake -DMODE=build_tree|install -DSPARSE_BUILD_DIR=<sparse build> -DCONSUMER_SOURCE_DIR=<dir>
#         -DWORK_DIR=<scratch> -DGENERATOR=<gen> -DCXX_COMPILER=<c++> -P run_consumer.cmake
function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${step} failed (${rc}):\n${out}\n${err}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

if(MODE STREQUAL "install")
  run("installing the adapter" ${CMAKE_COMMAND} --install ${SPARSE_BUILD_DIR}
      --prefix ${WORK_DIR}/prefix --component sparse_cpp_adapter)
  if(NOT EXISTS ${WORK_DIR}/prefix/include/sparse/sparse.hpp)
    message(FATAL_ERROR "the install has no include/sparse/sparse.hpp")
  endif()
  set(locate -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
elseif(MODE STREQUAL "build_tree")
  set(locate -Dsparse_DIR=${SPARSE_BUILD_DIR}/lib/cmake/sparse)
else()
  message(FATAL_ERROR "MODE must be build_tree or install")
endif()

run("configuring the consumer" ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${WORK_DIR}/build
    -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF ${locate})
run("building the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)

file(WRITE ${WORK_DIR}/session
  "{\"pidDir\":\"${WORK_DIR}\",\"conf\":{},\"context\":{}}\nend\n"
  "{\"id\":\"7\",\"comp\":\"s\",\"stream\":\"default\",\"task\":1,\"tuple\":[\"hi\"]}\nend\n")
execute_process(COMMAND ${WORK_DIR}/build/consumer_bolt
  INPUT_FILE ${WORK_DIR}/session OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
  TIMEOUT 30)
set(expected_tail
  "{\"command\":\"emit\",\"anchors\":[\"7\"],\"need_task_ids\":false,\"tuple\":[\"HI\"]}\nend\n"
  "{\"command\":\"ack\",\"id\":\"7\"}\nend\n")
string(CONCAT expected_tail ${expected_tail})
string(FIND "${out}" "${expected_tail}" at)
if(NOT rc EQUAL 0 OR at EQUAL -1 OR NOT out MATCHES "^{\"pid\":[0-9]+}\nend\n")
  message(FATAL_ERROR "the consumer bolt misbehaved (exit ${rc}):\n${out}\nstderr:\n${err}")
endif()
message(STATUS "package ${MODE}: consumer built and ran")
