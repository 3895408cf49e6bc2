// `tokenscope-cli generate` / `tokenize` as a user runs them, on the real tiny aidreams260K.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

class TestCliGenerate : public QObject {
  Q_OBJECT
  QString models_ = qEnvironmentVariable("TOKENSCOPE_SHARED_DIR", "../shared") + "/models";

  struct Run {
    int exit_code;
    QJsonObject json;
    QString err;
    QString out;           // stdout as text
    bool crashed = false;  // ended by a signal (std::terminate's abort, a segfault)
  };
  Run cli(const QStringList& args,
          const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(TOKENSCOPE_CLI, args);
    [&] { QVERIFY(p.waitForFinished(60000)); }();
    const QByteArray out = p.readAllStandardOutput();
    return {p.exitCode(), QJsonDocument::fromJson(out).object(),
            QString::fromUtf8(p.readAllStandardError()), QString::fromUtf8(out),
            p.exitStatus() == QProcess::CrashExit};
  }
  QJsonObject reference(const QString& name) {
    QFile f(models_ + "/aidreams260K/reference/" + name + ".json");
    f.open(QIODevice::ReadOnly);
    return QJsonDocument::fromJson(f.readAll()).object();
  }

 private slots:
  void init() {
    if (!QFile::exists(models_ + "/aidreams260K/aidreams260K.gguf"))
      QSKIP(qPrintable(models_ + " is absent (the shared test fixtures are not laid out here)"));
  }

  void greedyGenerationReproducesTheReference() {
    const QJsonObject ref = reference("I_dreamed");
    for (const char* file : {"aidreams260K.bin", "aidreams260K.gguf"}) {
      const Run r = cli({"generate", "--model", models_ + "/aidreams260K/" + file, "--prompt",
                         "I dreamed", "--max-tokens", "64", "--temperature", "0", "--json"});
      QCOMPARE(r.exit_code, 0);
      QCOMPARE(r.json.value("token_ids").toArray(), ref.value("generated_ids").toArray());
      QCOMPARE(r.json.value("text").toString(), ref.value("generated_text").toString());
      QCOMPARE(r.json.value("prompt_tokens").toInt(), 7);
      QCOMPARE(r.json.value("output_tokens").toInt(), 64);
      QVERIFY(r.json.value("prefill_ms").toDouble() > 0);
      QVERIFY(r.json.value("ttft_ms").toDouble() >= r.json.value("prefill_ms").toDouble());
      QVERIFY(r.json.value("tpot_ms").toDouble() > 0);
      QVERIFY(r.json.value("tokens_per_s").toDouble() > 0);
      const QJsonObject model = r.json.value("model").toObject();
      QCOMPARE(model.value("layers").toInt(), 4);
      QCOMPARE(model.value("kv_heads").toInt(), 4);
      QCOMPARE(model.value("vocab").toInt(), 512);
      QCOMPARE(model.value("positional").toString(), QString("rope"));
    }
  }

  // --draft: the same greedy tokens as the reference, and the speculative fields.
  void speculativeGreedyMatchesTheReference() {
    const QJsonObject ref = reference("I_dreamed");
    const QString model = models_ + "/aidreams260K/aidreams260K.gguf";
    for (const QString& draft :
         {QString("self-int4"), QString("self-layers:2"), QString("lookup:2"), model}) {
      for (const char* k : {"3", "auto"}) {
        const Run r = cli({"generate", "--model", model, "--prompt", "I dreamed", "--max-tokens",
                           "64", "--draft", draft, "--draft-k", k, "--json"});
        QCOMPARE(r.exit_code, 0);
        QCOMPARE(r.json.value("token_ids").toArray(), ref.value("generated_ids").toArray());
        QCOMPARE(r.json.value("draft").toString(), draft);
        QCOMPARE(r.json.value("draft_k").toString(), QString(k));
        const int steps = r.json.value("steps").toInt();
        const int accepted = r.json.value("accepted_tokens").toInt();
        QVERIFY(steps > 0 && steps <= 64);
        QCOMPARE(r.json.value("speculative_steps").toArray().size(), steps);
        // Every step commits its accepted drafts plus one token of the target's own.
        QCOMPARE(accepted + steps, 64);
        int histogram_steps = 0;
        for (const auto& n : r.json.value("accepted_length_histogram").toArray())
          histogram_steps += n.toInt();
        QCOMPARE(histogram_steps, steps);
        const int drafted = r.json.value("drafted_tokens").toInt();
        if (drafted > 0)
          QCOMPARE(r.json.value("acceptance_rate").toDouble(), double(accepted) / drafted);
        QVERIFY(r.json.value("verify_ms").toDouble() > 0);
      }
    }
    // The model drafting for itself is always right: 64 tokens in far fewer than 64 steps.
    const Run self = cli({"generate", "--model", model, "--prompt", "I dreamed", "--max-tokens",
                          "64", "--draft", model, "--draft-k", "4", "--json"});
    QCOMPARE(self.json.value("acceptance_rate").toDouble(), 1.0);
    QVERIFY(self.json.value("tokens_per_target_forward").toDouble() > 4.0);
    // A draft with another vocabulary is refused, naming both sizes.
    const Run wrong =
        cli({"generate", "--model", model, "--prompt", "I dreamed", "--max-tokens", "4", "--draft",
             models_ + "/baichuan-tiny-rope/baichuan-tiny-rope-32L-f32.gguf"});
    QCOMPARE(wrong.exit_code, 2);
    QVERIFY2(wrong.err.contains("has 4096 tokens, the target's 512"), qPrintable(wrong.err));
    const Run bad =
        cli({"generate", "--model", model, "--prompt", "x", "--draft", "self-layers:9"});
    QVERIFY2(bad.exit_code == 2 && bad.err.contains("only 4 layers"), qPrintable(bad.err));
  }

  void promptIdsAndSeededSampling() {
    const QJsonObject ref = reference("In_my_dream");
    QStringList ids;
    for (const auto& v : ref.value("prompt_ids").toArray()) ids << QString::number(v.toInt());
    const Run greedy = cli({"generate", "--model", models_ + "/aidreams260K/aidreams260K.gguf",
                            "--prompt-ids", ids.join(','), "--max-tokens", "64", "--json"});
    QCOMPARE(greedy.json.value("token_ids").toArray(), ref.value("generated_ids").toArray());
    const QStringList sampled = {
        "generate", "--model",       models_ + "/aidreams260K/aidreams260K.gguf",
        "--prompt", "I dreamed",     "--max-tokens",
        "40",       "--temperature", "0.9",
        "--top-p",  "0.95",          "--top-k",
        "40",       "--seed",        "7",
        "--json"};
    const Run a = cli(sampled), b = cli(sampled);
    QCOMPARE(a.json.value("token_ids").toArray(), b.json.value("token_ids").toArray());
    QStringList other = sampled;
    other[other.indexOf("7")] = "8";
    QVERIFY(cli(other).json.value("token_ids").toArray() != a.json.value("token_ids").toArray());
  }

  void tokenizeShowsIdsAndPieces() {
    const Run r = cli({"tokenize", "--model", models_ + "/aidreams260K/aidreams260K.gguf", "--text",
                       "I dreamed", "--json"});
    QCOMPARE(r.exit_code, 0);
    QCOMPARE(r.json.value("ids").toArray(), reference("I_dreamed").value("prompt_ids").toArray());
    QCOMPARE(r.json.value("pieces").toArray().at(1).toString(), QString("▁I"));
    const Run no_bos = cli({"tokenize", "--model", models_ + "/aidreams260K/aidreams260K.gguf",
                            "--text", "I dreamed", "--no-bos", "--json"});
    QCOMPARE(no_bos.json.value("ids").toArray().size(), 6);
    // The sentencepiece library, on the same vocabulary, gives the same ids.
    const Run library = cli({"tokenize", "--model", models_ + "/aidreams260K/aidreams260K.gguf",
                             "--text", "I dreamed", "--sentencepiece", "--json"});
    QCOMPARE(library.exit_code, 0);
    QCOMPARE(library.json.value("ids").toArray(), r.json.value("ids").toArray());
  }

  void perplexityIsLowOnTheModelsOwnTextAndHighOnNoise() {
    QTemporaryDir dir;
    const auto write = [&](const char* name, const QString& text) {
      QFile f(dir.filePath(name));
      f.open(QIODevice::WriteOnly);
      f.write(text.toUtf8());
      return dir.filePath(name);
    };
    const QString own = reference("BOS").value("generated_text").toString();
    const QString noise = "zq xv jk wq pz qq vx kj zz xq jj wv pq zk xx qj vv kk zp jq";
    const QString model = models_ + "/aidreams260K/aidreams260K.gguf";
    const Run a = cli({"ppl", "--model", model, "--text", write("own.txt", own), "--json"});
    const Run b = cli({"ppl", "--model", model, "--text", write("noise.txt", noise), "--json"});
    QCOMPARE(a.exit_code, 0);
    const double own_ppl = a.json.value("perplexity").toDouble();
    const double noise_ppl = b.json.value("perplexity").toDouble();
    QVERIFY2(own_ppl > 1 && own_ppl < 5, qPrintable(QString::number(own_ppl)));
    QVERIFY2(noise_ppl > 10 * own_ppl, qPrintable(QString("%1 vs %2").arg(noise_ppl).arg(own_ppl)));
    QVERIFY(a.json.value("windows").toInt() >= 1);
    // int8 weights stay within 1% of f32; int4 within 10%.
    const QString own_file = dir.filePath("own.txt");
    const double int8_ppl = cli({"ppl", "--model", model, "--text", own_file, "--weights", "int8",
                                 "--no-cache", "--json"})
                                .json.value("perplexity")
                                .toDouble();
    const Run int4 = cli({"ppl", "--model", model, "--text", own_file, "--weights", "int4",
                          "--no-cache", "--int4-group", "32", "--json"});
    QCOMPARE(int4.json.value("weight_format").toString(), QString("int4"));
    QVERIFY2(std::abs(int8_ppl / own_ppl - 1) < 0.01,
             qPrintable(QString("%1 vs %2").arg(int8_ppl).arg(own_ppl)));
    QVERIFY(std::abs(int4.json.value("perplexity").toDouble() / own_ppl - 1) < 0.10);
    const Run bad = cli({"ppl", "--model", model, "--text", own_file, "--weights", "int3"});
    QCOMPARE(bad.exit_code, 1);
    QVERIFY2(bad.err.contains("expected auto, f32, f16, int8, int4 or q8_0, found 'int3'"),
             qPrintable(bad.err));
  }

  void badInputsSayWhatWasExpected() {
    const Run missing =
        cli({"generate", "--model", "/nonexistent.gguf", "--prompt", "x", "--json"});
    QCOMPARE(missing.exit_code, 1);
    QVERIFY2(missing.err.contains("cannot open /nonexistent.gguf"), qPrintable(missing.err));
    const Run ids = cli({"generate", "--model", models_ + "/aidreams260K/aidreams260K.gguf",
                         "--prompt-ids", "1,9999", "--json"});
    QCOMPARE(ids.exit_code, 2);
    QVERIFY2(ids.err.contains("expected a whole number from 0 to 511, found '9999'"),
             qPrintable(ids.err));
    const Run both = cli({"generate", "--model", "m", "--prompt", "a", "--prompt-ids", "1"});
    QCOMPARE(both.exit_code, 2);
    QVERIFY(both.err.contains("exactly one of --prompt TEXT or --prompt-ids"));
    const Run kv = cli({"generate", "--model", models_ + "/aidreams260K/aidreams260K.gguf",
                        "--prompt", "a", "--kv", "int2"});
    QCOMPARE(kv.exit_code, 2);
    QVERIFY2(kv.err.contains("expected f32, f16 or int8, found 'int2'"), qPrintable(kv.err));
    const Run kv8 = cli({"generate", "--model", models_ + "/aidreams260K/aidreams260K.gguf",
                         "--prompt", "I dreamed", "--kv", "int8", "--weights", "int8", "--no-cache",
                         "--max-tokens", "8", "--json"});
    QCOMPARE(kv8.exit_code, 0);
    QCOMPARE(kv8.json.value("kv_format").toString(), QString("int8"));
    QCOMPARE(kv8.json.value("quant_cache").toString(), QString("off"));
    QCOMPARE(kv8.json.value("token_ids").toArray().size(), 8);
    const Run gpu = cli({"generate", "--model", "m", "--prompt", "a", "--backend", "gpu"});
    QCOMPARE(gpu.exit_code, 2);
    QVERIFY2(gpu.err.contains("expected cpu, cuda or auto, found 'gpu'"), qPrintable(gpu.err));
  }

  // --backend cuda where CUDA cannot run (no plugin; the real plugin on a machine without
  // a driver or device): the CPU backend generates the reference tokens and the output
  // says why it ran instead.
  void cudaFallsBackToTheCpuSayingWhy() {
    const QJsonObject ref = reference("I_dreamed");
    QStringList plugins = {"/nonexistent/libtokenscope_cuda.so"};
#ifdef TOKENSCOPE_CUDA_PLUGIN_FILE
    plugins << TOKENSCOPE_CUDA_PLUGIN_FILE;
#endif
    for (const QString& plugin : plugins) {
      QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
      env.insert("TOKENSCOPE_CUDA_PLUGIN", plugin);
      const Run run =
          cli({"generate", "--model", models_ + "/aidreams260K/aidreams260K.gguf", "--prompt",
               "I dreamed", "--max-tokens", "16", "--backend", "cuda", "--json"},
              env);
      QCOMPARE(run.exit_code, 0);
      const QJsonArray want = ref.value("generated_ids").toArray();
      const QJsonArray got = run.json.value("token_ids").toArray();
      for (int i = 0; i < got.size(); ++i) QCOMPARE(got[i].toInt(), want[i].toInt());
      QCOMPARE(got.size(), 16);
      if (run.json.value("backend").toString() == "cuda") continue;  // a machine with a GPU
      QCOMPARE(run.json.value("backend").toString(), QString("cpu"));
      const QString note = run.json.value("backend_note").toString();
      const QString why = plugin.startsWith("/nonexistent") ? "not found" : "CUDA";
      QVERIFY2(note.contains(why) && note.contains("using the CPU backend"), qPrintable(note));
      QVERIFY2(run.err.contains(note), qPrintable(run.err));  // said on stderr too
    }
  }

  // A CUDA failure mid-generation (the fault-injecting plugin: its third pass faults as an
  // illegal address does): exit 1, not a crash; the message names the failed pass and its
  // position, says how many tokens came before it, that the session was closed and how
  // to run on the CPU; the tokens before it were printed.
  void aCudaFailureMidGenerationIsReportedNotACrash() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("TOKENSCOPE_CUDA_PLUGIN", TOKENSCOPE_FAULT_PLUGIN_FILE);
    env.insert("TOKENSCOPE_FAULT_AT_FORWARD", "3");
    const Run run = cli({"generate", "--model", models_ + "/aidreams260K/aidreams260K.gguf",
                         "--prompt", "I dreamed", "--max-tokens", "16", "--backend", "cuda"},
                        env);
    QVERIFY(!run.crashed);
    QCOMPARE(run.exit_code, 1);
    QVERIFY2(run.err.contains("the engine failed: CUDA: cudaStreamSynchronize(stream_): an "
                              "illegal memory access was encountered"),
             qPrintable(run.err));
    QVERIFY2(run.err.contains("in a pass of 1 position(s) at "), qPrintable(run.err));
    QVERIFY2(run.err.contains("TOKENSCOPE_CUDA_SYNC=1"), qPrintable(run.err));
    QVERIFY2(run.err.contains("(after 2 tokens; the CUDA session was closed: --backend cpu runs "
                              "this on the CPU)"),
             qPrintable(run.err));
    QVERIFY2(!run.err.contains("terminate"), qPrintable(run.err));
    QVERIFY2(!run.out.isEmpty(), "the two tokens before the failure were printed");
  }

  // The quantized weights are cached in the user's cache directory ($XDG_CACHE_HOME), never
  // beside the model: the second load reads the cache and generates the same tokens;
  // --no-cache neither reads nor writes it.
  void quantizedWeightsAreCachedInTheCacheDirectory() {
    QTemporaryDir dir, cache_home;
    const QString copy = dir.filePath("aidreams.gguf");
    QVERIFY(QFile::copy(models_ + "/aidreams260K/aidreams260K.gguf", copy));
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_CACHE_HOME", cache_home.path());
    const auto cli = [&](const QStringList& args) { return this->cli(args, env); };
    const QStringList args = {"generate",  "--model", copy,           "--prompt", "I dreamed",
                              "--weights", "int4",    "--max-tokens", "16",       "--json"};
    const Run first = cli(args);
    QCOMPARE(first.exit_code, 0);
    const QString note = first.json.value("quant_cache").toString();
    QVERIFY2(
        note.startsWith("written: " + cache_home.path() + "/tokenscope/aidreams.gguf-int4-g128-"),
        qPrintable(note));
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
             QStringList{"aidreams.gguf"});  // nothing beside the model
    QVERIFY(QFile::exists(note.mid(9)));
    const Run second = cli(args);
    QCOMPARE(second.json.value("quant_cache").toString(), "hit: " + note.mid(9));
    QCOMPARE(second.json.value("token_ids").toArray(), first.json.value("token_ids").toArray());
    QVERIFY(second.json.value("load_ms").toDouble() > 0);
    // A different group size is another cache entry.
    const Run g32 = cli(args + QStringList{"--int4-group", "32"});
    QVERIFY2(g32.json.value("quant_cache").toString().contains("/aidreams.gguf-int4-g32-"),
             qPrintable(g32.json.value("quant_cache").toString()));
  }

  // convert: the llama2.c checkpoint becomes our GGUF and a sharded bf16 safetensors
  // folder; both still reproduce the reference. Random shapes are written to size.
  void convertWritesModelsThatStillGenerateTheReference() {
    QTemporaryDir dir;
    const QJsonObject ref = reference("I_dreamed");
    const Run gguf = cli({"convert", "--model", models_ + "/aidreams260K/aidreams260K.bin", "--out",
                          dir.filePath("a.gguf"), "--json"});
    QCOMPARE(gguf.exit_code, 0);
    QVERIFY(gguf.json.value("bytes").toInteger() > 1'000'000);  // 260K f32 weights + vocab
    const Run hf = cli({"convert", "--model", models_ + "/aidreams260K/aidreams260K.gguf", "--out",
                        dir.filePath("hf"), "--format", "safetensors", "--shards", "2", "--json"});
    QCOMPARE(hf.exit_code, 0);
    QVERIFY(QFile::exists(dir.filePath("hf/model.safetensors.index.json")));
    QVERIFY(QFile::exists(dir.filePath("hf/tokenizer.model")));
    for (const QString& model : {dir.filePath("a.gguf"), dir.filePath("hf")}) {
      const Run r = cli(
          {"generate", "--model", model, "--prompt", "I dreamed", "--max-tokens", "64", "--json"});
      QCOMPARE(r.exit_code, 0);
      QCOMPARE(r.json.value("token_ids").toArray(), ref.value("generated_ids").toArray());
      QCOMPARE(r.json.value("text").toString(), ref.value("generated_text").toString());
    }
    // A Baichuan2 shape shrunk: NormHead and the 125,696-token vocabulary survive the file.
    const Run random =
        cli({"convert", "--random", "baichuan2-7b", "--layers", "1", "--dim", "32", "--heads", "2",
             "--ffn", "64", "--out", dir.filePath("r.gguf"), "--json"});
    QCOMPARE(random.exit_code, 0);
    const qint64 floats = 2 * 125696 * 32 + 4 * 32 * 32 + 3 * 64 * 32 + 3 * 32;
    QVERIFY2(random.json.value("bytes").toInteger() >= floats * 4, qPrintable(random.err));
    const Run run = cli({"generate", "--model", dir.filePath("r.gguf"), "--prompt-ids", "1,2,3",
                         "--max-tokens", "4", "--json"});
    QCOMPARE(run.exit_code, 0);
    QCOMPARE(run.json.value("model").toObject().value("vocab").toInt(), 125696);
    QCOMPARE(run.json.value("model").toObject().value("norm_head").toBool(), true);
    QCOMPARE(run.json.value("token_ids").toArray().size(), 4);
    // A Q4_0 GGUF (llama.cpp's block layout) read back as int4 with group 32 keeps the
    // blocks exactly and still generates.
    const Run q4 = cli({"convert", "--random", "llama-tiny", "--layers", "1", "--dtype", "q4_0",
                        "--out", dir.filePath("q4.gguf"), "--json"});
    QCOMPARE(q4.exit_code, 0);
    const Run q4run =
        cli({"generate", "--model", dir.filePath("q4.gguf"), "--prompt-ids", "1,2", "--weights",
             "int4", "--int4-group", "32", "--max-tokens", "3", "--json"});
    QCOMPARE(q4run.exit_code, 0);
    QCOMPARE(q4run.json.value("token_ids").toArray().size(), 3);
    // Bad requests say what was expected.
    const Run both = cli({"convert", "--random", "llama-tiny", "--model", "x", "--out", "y"});
    QCOMPARE(both.exit_code, 2);
    QVERIFY(both.err.contains("expected exactly one of --model PATH or --random SHAPE"));
    const Run shape = cli({"convert", "--random", "llama-tiny", "--heads", "3", "--out", "y"});
    QCOMPARE(shape.exit_code, 2);
    QVERIFY2(shape.err.contains("found dim 256, 3 heads, 3 KV heads"), qPrintable(shape.err));
    const Run dtype = cli({"convert", "--random", "llama-tiny", "--dtype", "bf16", "--out", "y"});
    QCOMPARE(dtype.exit_code, 2);
    QVERIFY2(dtype.err.contains("--dtype: expected f32, f16, q8_0, q4_0 for gguf, found 'bf16'"),
             qPrintable(dtype.err));
  }

  // Baichuan2 as published (a bf16 pytorch_model.bin): generate reads the folder, and
  // convert --to gguf writes a GGUF whose greedy ids are the reference's too; a random
  // model as pytorch_model.bin shards (convert --format pytorch) generates.
  void baichuan2PytorchFoldersGenerateAndConvertToGguf() {
    const QString folder = models_ + "/baichuan2-tiny/7b-bf16";
    if (!QFile::exists(folder + "/pytorch_model.bin")) QSKIP("baichuan2-tiny is absent");
    QFile f(models_ + "/baichuan2-tiny/reference/7b-bf16.A.json");
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonArray want =
        QJsonDocument::fromJson(f.readAll()).object().value("generated_ids").toArray();
    QTemporaryDir dir;
    const Run gguf = cli({"convert", "--to", "gguf", "--model", folder, "--out",
                          dir.filePath("b2.gguf"), "--type", "f32", "--json"});
    QCOMPARE(gguf.exit_code, 0);
    QCOMPARE(gguf.json.value("architecture").toString(), QString("baichuan"));
    QCOMPARE(gguf.json.value("type").toString(), QString("f32"));
    QCOMPARE(gguf.json.value("normalized_head").toBool(), true);
    QCOMPARE(gguf.json.value("tensors").toInt(), 3 + 9 * 32);
    for (const QString& model : {folder, dir.filePath("b2.gguf")}) {
      const Run r =
          cli({"generate", "--model", model, "--prompt-ids", "1,100,200,300", "--max-tokens", "24",
               "--temperature", "0", "--weights", "f32", "--kv", "f32", "--json"});
      QCOMPARE(r.exit_code, 0);
      QCOMPARE(r.json.value("token_ids").toArray(), want);
    }
    // The default type: as the checkpoint stores it.
    const Run stored = cli({"convert", "--to", "gguf", "--model", folder + "/pytorch_model.bin",
                            "--out", dir.filePath("b2-bf16.gguf"), "--json"});
    QCOMPARE(stored.exit_code, 0);
    QCOMPARE(stored.json.value("type").toString(), QString("bf16"));
    // Errors name what was expected.
    const Run file = cli({"convert", "--to", "gguf", "--model", dir.filePath("b2.gguf"), "--out",
                          dir.filePath("x.gguf")});
    QCOMPARE(file.exit_code, 2);
    QVERIFY2(file.err.contains("expected a Hugging Face folder"), qPrintable(file.err));
    const Run to = cli({"convert", "--to", "onnx", "--model", folder, "--out", "x"});
    QCOMPARE(to.exit_code, 2);
    QVERIFY2(to.err.contains("--to: expected gguf, found 'onnx'"), qPrintable(to.err));
    const Run type =
        cli({"convert", "--to", "gguf", "--model", folder, "--out", "x", "--type", "q5_k"});
    QCOMPARE(type.exit_code, 2);
    QVERIFY2(type.err.contains("expected f32, f16, bf16, q8_0, q4_0, q4_k, q6_k, found 'q5_k'"),
             qPrintable(type.err));
    QVERIFY(!QFile::exists("x"));

    const Run pt = cli({"convert",
                        "--random",
                        "baichuan2-7b",
                        "--layers",
                        "1",
                        "--dim",
                        "32",
                        "--heads",
                        "2",
                        "--ffn",
                        "64",
                        "--format",
                        "pytorch",
                        "--dtype",
                        "bf16",
                        "--shards",
                        "2",
                        "--out",
                        dir.filePath("pt"),
                        "--json"});
    QCOMPARE(pt.exit_code, 0);
    QVERIFY(QFile::exists(dir.filePath("pt/pytorch_model.bin.index.json")));
    const Run run = cli({"generate", "--model", dir.filePath("pt"), "--prompt-ids", "1,2,3",
                         "--max-tokens", "4", "--json"});
    QCOMPARE(run.exit_code, 0);
    QCOMPARE(run.json.value("model").toObject().value("norm_head").toBool(), true);
    QCOMPARE(run.json.value("token_ids").toArray().size(), 4);
  }
};

QTEST_GUILESS_MAIN(TestCliGenerate)
#include "test_cli_generate.moc"
