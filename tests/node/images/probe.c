/* The test node's network probe, a static program in a FROM scratch image (no shell, no curl):
 *
 *   probe serve PORT TEXT       answers every TCP connection on PORT with an HTTP/1.0 200 whose
 *                               body is "TEXT from HOSTNAME\n"; ends on SIGTERM
 *   probe get HOST PORT [SECONDS]
 *                               resolves HOST (the pod's /etc/resolv.conf: the cluster DNS),
 *                               connects, sends GET / and prints "resolved HOST to ADDRESS" and
 *                               the response; retries once a second for up to SECONDS (120) while
 *                               the name does not resolve or nobody answers (the Service's rules
 *                               may not be programmed yet); exit 0 on an answer, 1 with the last
 *                               error on stderr otherwise
 *
 * It proves what the node tests ask of the cluster: a Service name resolves through CoreDNS and
 * its ClusterIP routes to a pod through kube-proxy's rules. */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void stop(int signal_number) {
  (void)signal_number;
  _exit(0);
}

static int serve(const char* port, const char* text) {
  struct sigaction on_stop = {.sa_handler = stop};
  sigaction(SIGTERM, &on_stop, NULL);
  sigaction(SIGINT, &on_stop, NULL);
  signal(SIGPIPE, SIG_IGN);
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  int on = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(port))};
  if (listener < 0 || bind(listener, (struct sockaddr*)&address, sizeof address) != 0 || listen(listener, 16) != 0) {
    perror("probe serve: cannot listen");
    return 1;
  }
  printf("probe serve: listening on port %s\n", port);
  fflush(stdout);
  for (;;) {
    int connection = accept(listener, NULL, NULL);
    if (connection < 0) continue;
    char request[1024];
    (void)!read(connection, request, sizeof request);
    char answer[1024];
    int length = snprintf(answer, sizeof answer, "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n%s from %s\n",
                          text, host);
    (void)!write(connection, answer, (size_t)length);
    close(connection);
  }
}

/* One attempt: 0 and the response printed, or 1 with `error` filled in. */
static int get_once(const char* host, const char* port, char* error, size_t error_size) {
  struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM};
  struct addrinfo* found = NULL;
  int resolved = getaddrinfo(host, port, &hints, &found);
  if (resolved != 0) {
    snprintf(error, error_size, "cannot resolve %s: %s", host, gai_strerror(resolved));
    return 1;
  }
  char address[INET_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET, &((struct sockaddr_in*)found->ai_addr)->sin_addr, address, sizeof address);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct timeval timeout = {.tv_sec = 5};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  int connected = connect(fd, found->ai_addr, found->ai_addrlen);
  freeaddrinfo(found);
  if (connected != 0) {
    snprintf(error, error_size, "resolved %s to %s, cannot connect to port %s: %m", host, address, port);
    close(fd);
    return 1;
  }
  char request[512];
  int length = snprintf(request, sizeof request, "GET / HTTP/1.0\r\nHost: %s\r\n\r\n", host);
  char response[4096];
  ssize_t got = 0;
  if (write(fd, request, (size_t)length) == length) got = read(fd, response, sizeof response - 1);
  close(fd);
  if (got <= 0) {
    snprintf(error, error_size, "resolved %s to %s, no answer on port %s", host, address, port);
    return 1;
  }
  response[got] = '\0';
  printf("resolved %s to %s\n%s", host, address, response);
  return 0;
}

static int get(const char* host, const char* port, int seconds) {
  char error[512] = "";
  for (int attempt = 0; attempt < seconds; ++attempt) {
    if (get_once(host, port, error, sizeof error) == 0) return 0;
    fprintf(stderr, "probe get: %s (attempt %d)\n", error, attempt + 1);
    sleep(1);
  }
  fprintf(stderr, "probe get: gave up: %s\n", error);
  return 1;
}

int main(int argc, char** argv) {
  if (argc == 4 && strcmp(argv[1], "serve") == 0) return serve(argv[2], argv[3]);
  if ((argc == 4 || argc == 5) && strcmp(argv[1], "get") == 0)
    return get(argv[2], argv[3], argc == 5 ? atoi(argv[4]) : 120);
  fprintf(stderr, "usage: probe serve PORT TEXT | probe get HOST PORT [SECONDS]\n");
  return 2;
}
