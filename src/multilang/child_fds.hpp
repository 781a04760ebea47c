// What a freshly forked child does with the descriptors it inherited, before exec.
#pragma once

namespace sparse::multilang {

// Marks every descriptor above stderr close-on-exec, so the program exec'd next inherits only
// stdin, stdout and stderr: never the web view's listening socket, log files, Kafka sockets or
// the pipe ends of sibling components. Marking rather than closing keeps an exec-error pipe
// (itself close-on-exec) working until the exec. Async-signal-safe: callable between fork and
// exec in a process that has threads.
void MarkInheritedDescriptorsCloseOnExec();

}  // namespace sparse::multilang
