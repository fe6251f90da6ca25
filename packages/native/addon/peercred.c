// peercred.node: getsockopt(SO_PEERCRED) as a tiny N-API addon, so that a
// client checking who serves its socket does not have to load koffi (about
// 20 ms of a CLI's start, most of the cost of that check). The build compiles
// it with the system C compiler when Node's headers are there; without them
// src/peer.ts answers through koffi instead, with the same result.
#define _GNU_SOURCE
#include <errno.h>
#include <sys/socket.h>
#include <node_api.h>

// peerCredentials(fd): { pid, uid, gid } of the socket's peer, or the errno
// (a number) when getsockopt fails. The caller validates fd and turns an
// errno into its own error type.
static napi_value peer_credentials(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t fd;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_int32(env, argv[0], &fd) != napi_ok) {
    napi_throw_type_error(env, NULL, "peerCredentials: fd must be a number");
    return NULL;
  }
  struct ucred cred;
  socklen_t length = sizeof cred;
  napi_value result;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) != 0) {
    // errno is read before any other call can change it.
    napi_create_int32(env, errno, &result);
    return result;
  }
  napi_value pid, uid, gid;
  if (napi_create_object(env, &result) != napi_ok || napi_create_int32(env, cred.pid, &pid) != napi_ok ||
      napi_create_uint32(env, cred.uid, &uid) != napi_ok || napi_create_uint32(env, cred.gid, &gid) != napi_ok ||
      napi_set_named_property(env, result, "pid", pid) != napi_ok ||
      napi_set_named_property(env, result, "uid", uid) != napi_ok ||
      napi_set_named_property(env, result, "gid", gid) != napi_ok) {
    return NULL;  // N-API has a pending exception (out of memory)
  }
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "peerCredentials", NAPI_AUTO_LENGTH, peer_credentials, NULL, &fn) != napi_ok ||
      napi_set_named_property(env, exports, "peerCredentials", fn) != napi_ok) {
    return NULL;
  }
  return exports;
}
