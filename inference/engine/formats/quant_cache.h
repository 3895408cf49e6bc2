// The quantization cache: a model quantized at load (int8 / int4 / f16) is saved in the
// user's cache directory, so the next load with the same settings maps one file instead of
// reading and quantizing every weight again. Never beside the user's model.
//
// Where: quantCacheDir(), i.e. $XDG_CACHE_HOME/tokenscope (default ~/.cache/tokenscope).
// Name: "<model file or folder name>-<weights>[-g<group>]-<key>.tsq".
// Key: a 64-bit FNV-1a hash of the settings and of every source file's name, size and
// content sampled at 18 places (64 KiB at each end and 16 x 4 KiB between): any edit that
// changes the size or a sampled byte, or a different file, gives a new key. A sampled hash
// because hashing all of a 14 GB file would cost the read the cache exists to avoid.
#pragma once
#include <memory>
#include <string>

#include "inference/engine/formats/model_loader.h"
#include "inference/engine/model/model.h"

namespace ts::engine {

// $XDG_CACHE_HOME/tokenscope, else $HOME/.cache/tokenscope; "" when neither is set.
std::string quantCacheDir();
// The cache file for `source` loaded with `options` ("" when the source cannot be read or
// there is no cache directory).
std::string quantCachePath(const std::string& source, const LoadOptions& options);

// The cached model, or an error saying why it is unusable (missing, truncated, another
// format version); a caller then loads the source and writes a new cache.
// `progress` is told the share of layers read (false: fail with kLoadCancelled).
Result<std::shared_ptr<Model>> readQuantCache(const std::string& path,
                                              const LoadProgress& progress = {});
Result<bool> writeQuantCache(const Model& model, const std::string& path);

}  // namespace ts::engine
