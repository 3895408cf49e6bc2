// tokenscope-cli: the scriptable face of TokenScope. Subcommands print JSON with --json.
#include <QCoreApplication>
#include <QGuiApplication>
#include <cstdio>
#include <cstring>
#include <memory>

#include "app/cli/bench_command.h"
#include "app/cli/chat_command.h"
#include "app/cli/config_command.h"
#include "app/cli/convert_command.h"
#include "app/cli/doctor_command.h"
#include "app/cli/download_command.h"
#include "app/cli/estimate_command.h"
#include "app/cli/generate_command.h"
#include "app/cli/lab_command.h"
#include "app/cli/serve_command.h"

namespace {

void printUsage() {
  std::printf(
      "Usage: tokenscope-cli <command> [options]\n\n"
      "Commands:\n"
      "  bench      benchmark an endpoint: latency percentiles, throughput, goodput\n"
      "  chat       stream one chat completion from an OpenAI-compatible endpoint, measured\n"
      "  config     show the effective configuration and its sources; check or export files\n"
      "  convert    write a model as GGUF or safetensors (or one with random weights)\n"
      "  doctor     check a provider step by step and say how to fix what fails\n"
      "  download   fetch a model file from a Hugging Face hub (resumable, verified)\n"
      "  estimate   predict a model's speed here, a lever's effect, tensor parallelism\n"
      "  generate   generate tokens with the local engine (CPU or CUDA), measured\n"
      "  lab        one lever against a baseline: interleaved runs, intervals, prediction\n"
      "  serve      serve the local engine as an OpenAI-compatible API\n"
      "  tokenize   show how a model's vocabulary splits a text\n"
      "  ppl        perplexity of a model on a text file\n\n"
      "  --version  print the version\n"
      "Run `tokenscope-cli <command> --help` for a command's options.\n");
}

// `lab --ladder --report DIR` draws PNG charts, which needs fonts: a QGuiApplication on the
// offscreen platform (no display needed). Every other command runs on QCoreApplication.
std::unique_ptr<QCoreApplication> makeApplication(int& argc, char** argv) {
  bool draws = false;
  for (int i = 1; i < argc; ++i) draws |= std::strncmp(argv[i], "--report", 8) == 0;
  if (!draws || argc < 2 || std::strcmp(argv[1], "lab") != 0)
    return std::make_unique<QCoreApplication>(argc, argv);
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  return std::make_unique<QGuiApplication>(argc, argv);
}

}  // namespace

int main(int argc, char** argv) {
  const auto app = makeApplication(argc, argv);
  QCoreApplication::setApplicationName("tokenscope-cli");
  QCoreApplication::setApplicationVersion(TOKENSCOPE_VERSION);
  QStringList args = QCoreApplication::arguments().mid(1);
  if (args.isEmpty() || args.first() == "--help" || args.first() == "-h") {
    printUsage();
    return args.isEmpty() ? 2 : 0;
  }
  if (args.first() == "--version") {
    std::printf("tokenscope-cli %s\n", TOKENSCOPE_VERSION);
    return 0;
  }
  const QString command = args.takeFirst();
  if (command == "bench") return ts::runBenchCommand(args);
  if (command == "chat") return ts::runChatCommand(args);
  if (command == "config") return ts::runConfigCommand(args);
  if (command == "convert") return ts::runConvertCommand(args);
  if (command == "doctor") return ts::runDoctorCommand(args);
  if (command == "download") return ts::runDownloadCommand(args);
  if (command == "estimate") return ts::runEstimateCommand(args);
  if (command == "generate") return ts::runGenerateCommand(args);
  if (command == "lab") return ts::runLabCommand(args);
  if (command == "serve") return ts::runServeCommand(args);
  if (command == "tokenize") return ts::runTokenizeCommand(args);
  if (command == "ppl") return ts::runPplCommand(args);
  std::fprintf(stderr, "tokenscope-cli: unknown command '%s'\n", command.toLocal8Bit().constData());
  printUsage();
  return 2;
}
