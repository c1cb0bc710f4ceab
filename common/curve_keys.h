// CURVE key pairs (ZeroMQ's CurveZMQ, libsodium underneath) as sweep keeps
// them: made fresh per `sweep run` for its local runners, or in key files
// made by `sweep keys new NAME` (NAME.key: both keys, mode 0600; NAME.pub:
// the public key alone, to hand to the other side). Keys are Z85 text, 40
// characters. Secret keys never reach a log or an error message.
#pragma once

#include <map>
#include <set>
#include <string>

#include "common/status.h"

namespace sweep {

struct CurveKeyPair {
  std::string public_key;  // Z85
  std::string secret_key;  // Z85
};

// A fresh key pair; kUnavailable when libzmq was built without CURVE.
Result<CurveKeyPair> NewCurveKeyPair();

// Writes DIR/NAME.key (0600, refused if it exists) and DIR/NAME.pub,
// creating DIR (0700) if needed. Returns the .key path.
Result<std::string> WriteCurveKeyFiles(const std::string& dir, const std::string& name,
                                       const CurveKeyPair& keys);

// Reads a NAME.key file; refused unless it is a regular file that only its
// owner can read or write.
Result<CurveKeyPair> ReadCurveSecretFile(const std::string& path);

// Reads the public key from a NAME.pub (or NAME.key) file.
Result<std::string> ReadCurvePublicFile(const std::string& path);

// The public keys of every *.pub file in `dir` except `except` (a file name).
Result<std::set<std::string>> ReadCurveAllowList(const std::string& dir, const std::string& except);
// The same keys, each with its file's name less ".pub" (a user's name).
Result<std::map<std::string, std::string>> ReadCurveNamedKeys(const std::string& dir,
                                                              const std::string& except = "");

// Key text as it goes into a descriptor or a file: "public-key = ...\n"
// "secret-key = ...\n" (the secret line only when `with_secret`).
std::string FormatCurveKeys(const CurveKeyPair& keys, bool with_secret);
// Parses that text; `what` names its source in errors.
Result<CurveKeyPair> ParseCurveKeys(const std::string& text, const std::string& what,
                                    bool need_secret);
// The "server-key = ..." line of such a text (what a local runner is handed).
Result<std::string> ParseCurveServerKey(const std::string& text, const std::string& what);

}  // namespace sweep
