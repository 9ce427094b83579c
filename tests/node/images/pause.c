/* The test node's pod sandbox (containerd's sandbox_image): the first process of every pod. It
 * only has to exist while the pod does, so that the pod's namespaces have an owner; it reaps the
 * orphans the kernel hands to it (it is PID 1 of the pod's PID namespace when one is shared) and
 * ends on SIGTERM or SIGINT, which is how the kubelet stops a sandbox. Built static (no libc in
 * the image): see tests/node/images/Containerfile. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static void stop(int signal_number) {
  (void)signal_number;
  _exit(0);
}

static void reap(int signal_number) {
  (void)signal_number;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
}

int main(void) {
  struct sigaction on_stop = {.sa_handler = stop};
  struct sigaction on_child = {.sa_handler = reap, .sa_flags = SA_NOCLDSTOP | SA_RESTART};
  sigaction(SIGTERM, &on_stop, NULL);
  sigaction(SIGINT, &on_stop, NULL);
  sigaction(SIGCHLD, &on_child, NULL);
  for (;;) pause();
}
