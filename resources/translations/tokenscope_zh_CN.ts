<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>QObject</name>
    <message>
        <source>no temporary directory: %1</source>
        <translation>没有可用的临时目录：%1</translation>
    </message>
    <message>
        <source>the embedded documentation is missing</source>
        <translation>内嵌的文档缺失</translation>
    </message>
    <message>
        <source>training the demo tokenizer failed: %1</source>
        <translation>训练演示分词器失败：%1</translation>
    </message>
    <message>
        <source>Demo model — random weights</source>
        <translation>演示模型 — 随机权重</translation>
    </message>
    <message>
        <source>Time to first token: the first non-empty content chunk − the request start (ms); over the series&apos; runs</source>
        <translation>首词元时间：第一个非空内容块 − 请求开始（毫秒）；统计该系列的所有运行</translation>
    </message>
    <message>
        <source>Time per output token: (E2E − TTFT) / (output tokens − 1), for runs with more than one token (ms)</source>
        <translation>每个输出词元的时间：(E2E − TTFT) / (输出词元数 − 1)，仅统计多于一个词元的运行（毫秒）</translation>
    </message>
    <message>
        <source>Inter-token latency: the gap before every content chunk after the first, over every chunk of every run (ms)</source>
        <translation>词元间延迟：除第一个外每个内容块之前的间隔，统计所有运行的所有内容块（毫秒）</translation>
    </message>
    <message>
        <source>End to end: the last non-empty content chunk − the request start (ms)</source>
        <translation>端到端：最后一个非空内容块 − 请求开始（毫秒）</translation>
    </message>
    <message>
        <source>(output tokens − 1) / (E2E − TTFT) = 1 / TPOT, mean over the runs</source>
        <translation>(输出词元数 − 1) / (E2E − TTFT) = 1 / TPOT，各次运行的平均值</translation>
    </message>
    <message>
        <source>output tokens / E2E, mean over the runs</source>
        <translation>输出词元数 / E2E，各次运行的平均值</translation>
    </message>
    <message>
        <source>The local engine&apos;s prompt pass (part of TTFT), mean over the runs</source>
        <translation>本地引擎处理提示的前向计算（TTFT 的一部分），各次运行的平均值</translation>
    </message>
    <message>
        <source>Speculative runs: accepted / drafted tokens, mean over the runs</source>
        <translation>推测采样运行：被接受的 / 起草的词元数，各次运行的平均值</translation>
    </message>
    <message>
        <source>concurrency %1</source>
        <translation>并发 %1</translation>
    </message>
    <message>
        <source>%1 req/s</source>
        <translation>%1 请求/秒</translation>
    </message>
    <message>
        <source>%1 words</source>
        <translation>%1 词</translation>
    </message>
    <message>
        <source>whole prompts</source>
        <translation>整段提示</translation>
    </message>
    <message>
        <source>chunk %1</source>
        <translation>分块 %1</translation>
    </message>
    <message>
        <source>%1 running</source>
        <translation>%1 个运行中</translation>
    </message>
    <message>
        <source>unpaced</source>
        <translation>不限速</translation>
    </message>
    <message>
        <source>paced to %1 ms</source>
        <translation>限速至 %1 毫秒</translation>
    </message>
</context>
<context>
    <name>QWidget</name>
    <message>
        <source>cannot make a PNG of a %1 x %2 chart</source>
        <translation>无法为 %1 x %2 的图表生成 PNG</translation>
    </message>
    <message>
        <source>cannot draw the chart as SVG</source>
        <translation>无法将图表绘制为 SVG</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>TokenScope: chat with LLMs and measure TTFT, TPOT and ITL live.</source>
        <translation>TokenScope:与大模型对话,并实时测量 TTFT、TPOT 和 ITL。</translation>
    </message>
    <message>
        <source>Use this OpenAI-compatible endpoint (not saved).</source>
        <translation>使用此 OpenAI 兼容端点(不保存)。</translation>
    </message>
    <message>
        <source>Model id for --base-url.</source>
        <translation>--base-url 使用的模型 ID。</translation>
    </message>
    <message>
        <source>Environment variable holding the key for --base-url.</source>
        <translation>保存 --base-url 密钥的环境变量。</translation>
    </message>
    <message>
        <source>Send this message once the window is shown.</source>
        <translation>窗口显示后发送此消息。</translation>
    </message>
    <message>
        <source>After the first run ends, save the window as PNG and quit.</source>
        <translation>第一次运行结束后,将窗口保存为 PNG 并退出。</translation>
    </message>
    <message>
        <source>Directory for the JSON-lines run log.</source>
        <translation>JSON-lines 运行日志的目录。</translation>
    </message>
    <message>
        <source>Configuration file (settings.json or config.toml).</source>
        <translation>配置文件(settings.json 或 config.toml)。</translation>
    </message>
    <message>
        <source>The configuration file was not used:
</source>
        <translation>未使用该配置文件:
</translation>
    </message>
    <message>
        <source>Configuration problems</source>
        <translation>配置问题</translation>
    </message>
    <message>
        <source>Demo model — random weights: its text is noise, its timings are real. For a real model: Provider → Download a model… (Ctrl+Shift+D).</source>
        <translation>演示模型 — 随机权重：它生成的文字没有意义，但计时是真实的。要使用真实模型：提供方 → 下载模型…（Ctrl+Shift+D）。</translation>
    </message>
    <message>
        <source>The SQLite run store (default: runs.sqlite in the app&apos;s data folder).</source>
        <translation>SQLite 运行记录库（默认：应用数据目录中的 runs.sqlite）。</translation>
    </message>
</context>
<context>
    <name>ts::AboutBox</name>
    <message>
        <source>CUDA driver %1, runtime %2: %3</source>
        <translation>CUDA 驱动 %1，运行时 %2：%3</translation>
    </message>
    <message>
        <source>CUDA: not used (%1)</source>
        <translation>CUDA：未使用（%1）</translation>
    </message>
    <message>
        <source>About TokenScope</source>
        <translation>关于 TokenScope</translation>
    </message>
    <message>
        <source>&lt;b&gt;TokenScope %1&lt;/b&gt;&lt;br&gt;An LLM inference playground: chat, measure every token, compare and benchmark.</source>
        <translation>&lt;b&gt;TokenScope %1&lt;/b&gt;&lt;br&gt;大模型推理实验台：对话、测量每个词元、比较与基准测试。</translation>
    </message>
    <message>
        <source>Qt %1 (built with %2)&lt;br&gt;sentencepiece %3&lt;br&gt;%4</source>
        <translation>Qt %1（构建于 %2）&lt;br&gt;sentencepiece %3&lt;br&gt;%4</translation>
    </message>
</context>
<context>
    <name>ts::ApiKey</name>
    <message>
        <source>No API key is configured for this provider: name the environment variable that holds it (for example TAOTOKEN_API_KEY) in the provider settings.</source>
        <translation>此提供方未配置 API 密钥:请在提供方设置中填写保存密钥的环境变量名(例如 TAOTOKEN_API_KEY)。</translation>
    </message>
    <message>
        <source>The environment variable %1 is not set: run `export %1=&lt;your key&gt;` in the shell that starts TokenScope, then try again.</source>
        <translation>环境变量 %1 未设置:请在启动 TokenScope 的 shell 中运行 `export %1=&lt;你的密钥&gt;`,然后重试。</translation>
    </message>
    <message>
        <source>The environment variable %1 is empty: put your key in it (`export %1=&lt;your key&gt;`), then try again.</source>
        <translation>环境变量 %1 为空:请填入你的密钥(`export %1=&lt;你的密钥&gt;`),然后重试。</translation>
    </message>
    <message>
        <source>The key</source>
        <translation>密钥</translation>
    </message>
    <message>
        <source>The key in %1</source>
        <translation>%1 中的密钥</translation>
    </message>
    <message>
        <source> was sent and rejected: check that it is current and belongs to this provider&apos;s base URL.</source>
        <translation>已发送但被拒绝:请确认它仍然有效,且属于此提供方的基础 URL。</translation>
    </message>
    <message>
        <source> It had white space around it (a pasted newline?), which TokenScope trimmed before sending; check that nothing else was pasted with it.</source>
        <translation> 它两端有空白(是否粘贴了换行?),TokenScope 已在发送前去除;请确认没有一起粘贴其他内容。</translation>
    </message>
</context>
<context>
    <name>ts::AppController</name>
    <message>
        <source>%1 is loaded: chat, serve or benchmark it (weights %2, KV cache %3, %4 positions).</source>
        <translation>%1 已加载：可以对话、提供服务或做基准测试（权重 %2，KV 缓存 %3，%4 个位置）。</translation>
    </message>
    <message>
        <source>the model download</source>
        <translation>模型下载</translation>
    </message>
    <message>
        <source>the benchmark</source>
        <translation>基准测试</translation>
    </message>
    <message>
        <source>loading the model in the model manager</source>
        <translation>模型管理器中的模型加载</translation>
    </message>
    <message>
        <source>the lever lab&apos;s run</source>
        <translation>杠杆实验的运行</translation>
    </message>
    <message>
        <source>The chat is answering on the local engine: the lab&apos;s timings would be disturbed. Stop the answer or wait for it to end, then run the lab.</source>
        <translation>聊天正在本地引擎上回答：实验的计时会受到干扰。请停止回答或等待其结束，然后再运行实验。</translation>
    </message>
    <message>
        <source>A benchmark is running: the lab&apos;s timings would be disturbed. Let it end or cancel it, then run the lab.</source>
        <translation>基准测试正在运行：实验的计时会受到干扰。请等待其结束或取消它，然后再运行实验。</translation>
    </message>
</context>
<context>
    <name>ts::BaseUrl</name>
    <message>
        <source>the base URL is empty; expected something like https://taotoken.net/api</source>
        <translation>基础 URL 为空;应类似 https://taotoken.net/api</translation>
    </message>
    <message>
        <source>added %1 (no scheme was given)</source>
        <translation>已添加 %1(未给出协议)</translation>
    </message>
    <message>
        <source>the base URL &apos;%1&apos; is not a valid URL; expected something like https://taotoken.net/api</source>
        <translation>基础 URL &apos;%1&apos; 不是有效的 URL;应类似 https://taotoken.net/api</translation>
    </message>
    <message>
        <source>the base URL &apos;%1&apos; uses scheme &apos;%2&apos;; expected http or https</source>
        <translation>基础 URL &apos;%1&apos; 使用了协议 &apos;%2&apos;;应为 http 或 https</translation>
    </message>
    <message>
        <source>removed a trailing /chat/completions (it is added per request)</source>
        <translation>已去掉末尾的 /chat/completions(每次请求时会自动添加)</translation>
    </message>
    <message>
        <source>removed a trailing /v1 (it is added per request)</source>
        <translation>已去掉末尾的 /v1(每次请求时会自动添加)</translation>
    </message>
    <message>
        <source>removed a trailing slash</source>
        <translation>已去掉末尾的斜杠</translation>
    </message>
</context>
<context>
    <name>ts::BenchGroup</name>
    <message>
        <source>concurrency</source>
        <translation>并发</translation>
    </message>
    <message>
        <source>request rate</source>
        <translation>请求速率</translation>
    </message>
    <message>
        <source>prompt words</source>
        <translation>提示词字数</translation>
    </message>
    <message>
        <source>prefill chunk</source>
        <translation>预填充分块</translation>
    </message>
    <message>
        <source>running sequences</source>
        <translation>运行中的序列</translation>
    </message>
    <message>
        <source>TPOT target ms</source>
        <translation>TPOT 目标 ms</translation>
    </message>
</context>
<context>
    <name>ts::BenchmarkController</name>
    <message>
        <source>Benchmark</source>
        <translation>基准测试</translation>
    </message>
    <message>
        <source>the local model, served on 127.0.0.1 for each step</source>
        <translation>本地模型，每一步在 127.0.0.1 上重新提供服务</translation>
    </message>
    <message>
        <source>The local model cannot run: </source>
        <translation>本地模型无法运行：</translation>
    </message>
    <message>
        <source>The local model cannot be served: </source>
        <translation>无法为本地模型提供服务：</translation>
    </message>
</context>
<context>
    <name>ts::ChatController</name>
    <message>
        <source>Run not logged: </source>
        <translation>运行未记录:</translation>
    </message>
    <message>
        <source>Loading %1… %2% (Stop cancels)</source>
        <translation>正在加载 %1… %2%（“停止”可取消）</translation>
    </message>
    <message>
        <source>Loaded %1.</source>
        <translation>已加载 %1。</translation>
    </message>
    <message>
        <source>Runs are not being recorded: </source>
        <translation>运行未被记录：</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) of an earlier session ended without finishing; they are kept as interrupted, with their partial answers.</source>
        <translation>
            <numerusform>上次会话中有 %n 次运行未正常结束；它们已标记为“中断”，并保留了部分回答。</numerusform>
        </translation>
    </message>
    <message>
        <source>Run not recorded: </source>
        <translation>运行未记录：</translation>
    </message>
    <message>
        <source>The local model runs on the CPU: %1</source>
        <translation>本地模型在 CPU 上运行：%1</translation>
    </message>
</context>
<context>
    <name>ts::Comparison</name>
    <message>
        <source>%1 runs</source>
        <translation>%1 次运行</translation>
    </message>
    <message>
        <source>(%1 runs)</source>
        <translation>（%1 次运行）</translation>
    </message>
</context>
<context>
    <name>ts::ConfigController</name>
    <message>
        <source>Configuration not imported</source>
        <translation>配置未导入</translation>
    </message>
    <message>
        <source>Imported </source>
        <translation>已导入 </translation>
    </message>
    <message>
        <source>Configuration not exported</source>
        <translation>配置未导出</translation>
    </message>
    <message>
        <source>Exported </source>
        <translation>已导出 </translation>
    </message>
    <message>
        <source> (the key variable&apos;s name, never a key)</source>
        <translation>(只包含密钥变量名,绝不包含密钥)</translation>
    </message>
    <message>
        <source>Effective configuration</source>
        <translation>生效配置</translation>
    </message>
    <message>
        <source>Setting</source>
        <translation>设置项</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>取值</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>%1 (environment: %2)</source>
        <translation>%1(环境变量:%2)</translation>
    </message>
    <message>
        <source>No configuration file is in use.</source>
        <translation>未使用配置文件。</translation>
    </message>
    <message>
        <source>Configuration file: </source>
        <translation>配置文件:</translation>
    </message>
    <message>
        <source>Configuration not exported: %1 is read at every start</source>
        <translation>配置未导出：每次启动时都会读取 %1</translation>
    </message>
    <message>
        <source>Using %1, %2: provider %3, temperature %4, max tokens %5 (View → Effective configuration)</source>
        <translation>正在使用 %1（%2）：提供方 %3，温度 %4，最大词元数 %5（视图 → 生效配置）</translation>
    </message>
</context>
<context>
    <name>ts::ConnectionDoctor</name>
    <message>
        <source>Set the base URL to the part before /v1/chat/completions (for example https://taotoken.net/api): look for a missing path prefix, a trailing path or a duplicated /v1.</source>
        <translation>将基础 URL 设为 /v1/chat/completions 之前的部分(例如 https://taotoken.net/api):检查是否缺少路径前缀、多了尾部路径或重复了 /v1。</translation>
    </message>
    <message>
        <source>Pick a model id the endpoint serves.</source>
        <translation>请选择该端点提供的模型 ID。</translation>
    </message>
    <message>
        <source>Wait before retrying, or lower the request rate.</source>
        <translation>稍后再试,或降低请求速率。</translation>
    </message>
    <message>
        <source>The provider has a problem on its side: try again later.</source>
        <translation>提供方一侧出现问题:请稍后再试。</translation>
    </message>
    <message>
        <source>The server refused the request as sent: </source>
        <translation>服务器拒绝了所发送的请求:</translation>
    </message>
    <message>
        <source>Check the host and port in the base URL and that the server is running.</source>
        <translation>检查基础 URL 中的主机和端口,并确认服务器正在运行。</translation>
    </message>
    <message>
        <source>The connection dropped mid-answer: check proxies and the server&apos;s logs.</source>
        <translation>应答途中连接中断:请检查代理和服务器日志。</translation>
    </message>
    <message>
        <source>This step hung: the server accepted the connection but did not answer in time; check its load, or raise the provider&apos;s timeout.</source>
        <translation>此步骤卡住了:服务器接受了连接但未及时应答;请检查其负载,或调大该提供方的超时。</translation>
    </message>
    <message>
        <source>The endpoint does not speak the OpenAI chat completions API at this URL.</source>
        <translation>该 URL 上的端点不支持 OpenAI chat completions API。</translation>
    </message>
    <message>
        <source>Enter the base URL as https://host/path, for example https://taotoken.net/api.</source>
        <translation>请按 https://主机/路径 的形式输入基础 URL,例如 https://taotoken.net/api。</translation>
    </message>
    <message>
        <source>the base URL is not usable</source>
        <translation>基础 URL 不可用</translation>
    </message>
    <message>
        <source>skipped: </source>
        <translation>已跳过:</translation>
    </message>
    <message>
        <source>could not connect</source>
        <translation>无法连接</translation>
    </message>
    <message>
        <source>connected to %1%2</source>
        <translation>已连接到 %1%2</translation>
    </message>
    <message>
        <source> (TLS handshake ok)</source>
        <translation>(TLS 握手成功)</translation>
    </message>
    <message>
        <source>DNS lookup of &apos;%1&apos; failed</source>
        <translation>&apos;%1&apos; 的 DNS 解析失败</translation>
    </message>
    <message>
        <source>Check the host name in the base URL (and your DNS / proxy settings).</source>
        <translation>检查基础 URL 中的主机名(以及 DNS / 代理设置)。</translation>
    </message>
    <message>
        <source>%1 refused the connection</source>
        <translation>%1 拒绝了连接</translation>
    </message>
    <message>
        <source>Check the port in the base URL and that the server is running.</source>
        <translation>检查基础 URL 中的端口,并确认服务器正在运行。</translation>
    </message>
    <message>
        <source>Check the base URL&apos;s scheme (http/https), host and port.</source>
        <translation>检查基础 URL 的协议(http/https)、主机和端口。</translation>
    </message>
    <message>
        <source>no connection to %1 within %2 ms</source>
        <translation>%2 毫秒内未能连接到 %1</translation>
    </message>
    <message>
        <source>The host does not answer: check the address, a firewall or a proxy.</source>
        <translation>主机无应答:请检查地址、防火墙或代理。</translation>
    </message>
    <message>
        <source>answered %1 token(s) (%2), finish_reason %3</source>
        <translation>应答了 %1 个 token(%2),finish_reason 为 %3</translation>
    </message>
    <message>
        <source>; stream_options %1; usage chunk %2</source>
        <translation>;stream_options %1;usage 块%2</translation>
    </message>
    <message>
        <source>rejected (HTTP 400), retried without it</source>
        <translation>被拒绝(HTTP 400),已去掉后重试</translation>
    </message>
    <message>
        <source>accepted</source>
        <translation>接受</translation>
    </message>
    <message>
        <source>sent</source>
        <translation>已发送</translation>
    </message>
    <message>
        <source>not sent</source>
        <translation>未发送</translation>
    </message>
    <message>
        <source>the endpoint lists no models</source>
        <translation>该端点未列出任何模型</translation>
    </message>
    <message>
        <source>available: </source>
        <translation>可用:</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not among the listed models (%2)%3</source>
        <translation>&apos;%1&apos; 不在所列模型中(%2)%3</translation>
    </message>
    <message>
        <source>; the requests above worked anyway</source>
        <translation>;但上面的请求仍然成功了</translation>
    </message>
    <message>
        <source>Use one of the listed ids as the model, or check the model&apos;s spelling.</source>
        <translation>请使用所列 ID 之一作为模型,或检查模型名拼写。</translation>
    </message>
    <message>
        <source>This endpoint has no /v1/models; enter model ids by hand (everything else can still work).</source>
        <translation>该端点没有 /v1/models;请手动输入模型 ID(其他功能仍可正常使用)。</translation>
    </message>
    <message>
        <source>Check the base URL and that the server is running.</source>
        <translation>检查基础 URL,并确认服务器正在运行。</translation>
    </message>
    <message>
        <source>Pick a model id the endpoint lists: %1.</source>
        <translation>请选择端点列出的模型 ID:%1。</translation>
    </message>
    <message>
        <source>The local engine&apos;s GPU failed: run the provider on the CPU.</source>
        <translation>本地引擎的 GPU 出错：请让该提供方改在 CPU 上运行。</translation>
    </message>
</context>
<context>
    <name>ts::ConversationController</name>
    <message>
        <source>Exported the chat to %1</source>
        <translation>已将对话导出到 %1</translation>
    </message>
    <message>
        <source>Chat not exported</source>
        <translation>对话未导出</translation>
    </message>
    <message>
        <source>Type a message first.</source>
        <translation>请先输入消息。</translation>
    </message>
    <message>
        <source>Add a provider first (Provider → Add…).</source>
        <translation>请先添加提供方(提供方 → 添加…)。</translation>
    </message>
    <message>
        <source>Sending to </source>
        <translation>正在发送到 </translation>
    </message>
    <message>
        <source>A run is in progress: stop it first.</source>
        <translation>正在运行：请先停止。</translation>
    </message>
    <message>
        <source>The provider &apos;%1&apos; no longer exists: add it again to rerun this.</source>
        <translation>提供方“%1”已不存在：请重新添加后再运行。</translation>
    </message>
    <message>
        <source>That run has no user message to send again.</source>
        <translation>该运行没有可再次发送的用户消息。</translation>
    </message>
    <message>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>System</source>
        <translation>系统</translation>
    </message>
    <message>
        <source>cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>A client of the app&apos;s server sent this request: send it again from that client.</source>
        <translation>此请求来自本应用服务器的客户端：请从该客户端再次发送。</translation>
    </message>
</context>
<context>
    <name>ts::DownloadController</name>
    <message>
        <source>Added the local provider %1</source>
        <translation>已添加本地提供方 %1</translation>
    </message>
</context>
<context>
    <name>ts::FreePortServer</name>
    <message>
        <source>cannot listen on 127.0.0.1 for the local model</source>
        <translation>无法在 127.0.0.1 上为本地模型监听</translation>
    </message>
</context>
<context>
    <name>ts::HistoryController</name>
    <message>
        <source>No run store is open, so there is no history.</source>
        <translation>运行记录库未打开，因此没有历史。</translation>
    </message>
    <message>
        <source>Tags not saved.</source>
        <translation>标签未保存。</translation>
    </message>
    <message>
        <source>Note not saved.</source>
        <translation>备注未保存。</translation>
    </message>
    <message numerus="yes">
        <source>Deleted %n run(s).</source>
        <translation>
            <numerusform>已删除 %n 次运行。</numerusform>
        </translation>
    </message>
    <message>
        <source>That run is no longer in the store.</source>
        <translation>该运行已不在记录库中。</translation>
    </message>
    <message>
        <source>Sent again to %1.</source>
        <translation>已再次发送到 %1。</translation>
    </message>
    <message>
        <source>%1: imported %2 run(s), %3 already in the store</source>
        <translation>%1：导入了 %2 次运行，%3 次已在记录库中</translation>
    </message>
    <message numerus="yes">
        <source>; skipped %n line(s): </source>
        <translation>
            <numerusform>；跳过 %n 行：</numerusform>
        </translation>
    </message>
    <message>
        <source>Run %1 is no longer in the store.</source>
        <translation>运行 %1 已不在记录库中。</translation>
    </message>
    <message>
        <source>Compare needs two runs: send another message first.</source>
        <translation>比较需要两次运行：请先再发送一条消息。</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
</context>
<context>
    <name>ts::KeyStore</name>
    <message>
        <source>no key is stored for it yet: set one under Provider → API key…</source>
        <translation>尚未为其保存密钥:请在 提供方 → API 密钥… 中设置</translation>
    </message>
    <message>
        <source>the keychain refused access (is it locked? unlock it, for example by logging in to the desktop session, then try again)</source>
        <translation>钥匙串拒绝访问(是否已锁定?请解锁,例如登录桌面会话,然后重试)</translation>
    </message>
    <message>
        <source>no keychain is available on this system</source>
        <translation>此系统上没有可用的钥匙串</translation>
    </message>
    <message>
        <source>Could not %1 the API key in the keychain: %2.</source>
        <translation>无法在钥匙串中%1 API 密钥:%2。</translation>
    </message>
    <message>
        <source>no Secret Service is reachable: there is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set). Use an environment variable for the key</source>
        <translation>无法访问 Secret Service:没有 D-Bus 会话总线(未设置 DBUS_SESSION_BUS_ADDRESS)。请改用环境变量提供密钥</translation>
    </message>
    <message>
        <source>no Secret Service is reachable: cannot connect to the D-Bus session bus (</source>
        <translation>无法访问 Secret Service:无法连接 D-Bus 会话总线(</translation>
    </message>
    <message>
        <source>). Use an environment variable for the key</source>
        <translation>)。请改用环境变量提供密钥</translation>
    </message>
    <message>
        <source>no Secret Service is reachable: nothing provides org.freedesktop.secrets on the session bus (install and start gnome-keyring or KWallet). Use an environment variable for the key</source>
        <translation>无法访问 Secret Service:会话总线上没有提供 org.freedesktop.secrets 的服务(请安装并启动 gnome-keyring 或 KWallet)。请改用环境变量提供密钥</translation>
    </message>
    <message>
        <source>store</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>read</source>
        <translation>读取</translation>
    </message>
    <message>
        <source>delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>cannot write %1: %2</source>
        <translation>无法写入 %1:%2</translation>
    </message>
    <message>
        <source>cannot read the key file %1: %2</source>
        <translation>无法读取密钥文件 %1:%2</translation>
    </message>
</context>
<context>
    <name>ts::LabController</name>
    <message>
        <source>weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <source>speculative sampling</source>
        <translation>推测采样</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>run %1 of %2 (interleaved)</source>
        <translation>第 %1 / %2 次运行（交替）</translation>
    </message>
    <message>
        <source>loading the baseline</source>
        <translation>正在加载基线</translation>
    </message>
    <message>
        <source>preparing %1</source>
        <translation>正在准备 %1</translation>
    </message>
    <message>
        <source>measuring this machine: %1</source>
        <translation>正在测量本机：%1</translation>
    </message>
    <message>
        <source>accuracy of %1</source>
        <translation>%1 的准确度</translation>
    </message>
    <message>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>as stored</source>
        <translation>按文件存储</translation>
    </message>
    <message>
        <source>The lever lab pulls the local engine&apos;s levers: choose the local engine as provider.</source>
        <translation>杠杆实验调节的是本地引擎的杠杆：请选择本地引擎作为提供方。</translation>
    </message>
    <message>
        <source>The lab cannot run: %1</source>
        <translation>实验无法运行：%1</translation>
    </message>
    <message>
        <source>The lab run failed: %1</source>
        <translation>实验运行失败：%1</translation>
    </message>
    <message>
        <source>Done; kept in the run store.</source>
        <translation>完成；已保存到运行记录库。</translation>
    </message>
    <message>
        <source>Done; not kept: no run store is open.</source>
        <translation>完成；未保存：没有打开的运行记录库。</translation>
    </message>
    <message>
        <source>Done; not kept in the run store: %1</source>
        <translation>完成；未保存到运行记录库：%1</translation>
    </message>
    <message>
        <source>The ladder kept: %1. Report: %2/ladder.md</source>
        <translation>阶梯保留了：%1。报告：%2/ladder.md</translation>
    </message>
    <message>
        <source>The ladder kept: %1. The report was not written: %2</source>
        <translation>阶梯保留了：%1。报告未写入：%2</translation>
    </message>
</context>
<context>
    <name>ts::LeverAttribution</name>
    <message>
        <source>These runs differ in %1: the difference cannot be attributed to either.</source>
        <translation>这些运行在%1上不同：差异无法归因于其中任何一项。</translation>
    </message>
    <message>
        <source>These runs differ in %1: the difference cannot be attributed to any one of them.</source>
        <translation>这些运行在%1上不同：差异无法归因于其中任何单独一项。</translation>
    </message>
    <message>
        <source>%1 and %2 differ in %3: the difference between them cannot be attributed to either.</source>
        <translation>%1 与 %2 在%3上不同：二者的差异无法归因于其中任何一项。</translation>
    </message>
    <message>
        <source>%1 and %2 differ in %3: the difference between them cannot be attributed to any one of them.</source>
        <translation>%1 与 %2 在%3上不同：二者的差异无法归因于其中任何单独一项。</translation>
    </message>
    <message>
        <source>Measure %1 alone…</source>
        <translation>单独测量%1…</translation>
    </message>
    <message>
        <source>model or endpoint</source>
        <translation>模型或端点</translation>
    </message>
    <message>
        <source>backend</source>
        <translation>后端</translation>
    </message>
    <message>
        <source>weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <source>speculative sampling</source>
        <translation>推测采样</translation>
    </message>
    <message>
        <source>prefill policy</source>
        <translation>预填充策略</translation>
    </message>
    <message>
        <source>sampling parameters</source>
        <translation>采样参数</translation>
    </message>
    <message>
        <source>maximum output length</source>
        <translation>最大输出长度</translation>
    </message>
    <message>
        <source>streaming</source>
        <translation>流式输出</translation>
    </message>
    <message>
        <source>prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <source>concurrency</source>
        <translation>并发</translation>
    </message>
    <message>
        <source>request rate</source>
        <translation>请求速率</translation>
    </message>
    <message>
        <source>running sequences</source>
        <translation>运行中的序列</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1、%2</translation>
    </message>
    <message>
        <source>%1 and %2</source>
        <translation>%1和%2</translation>
    </message>
    <message>
        <source>Measure %1 %2 alone…</source>
        <translation>单独测量%1 %2…</translation>
    </message>
    <message>
        <source>Run them again changing one setting at a time.</source>
        <translation>请重新运行，每次只改变一项设置。</translation>
    </message>
    <message>
        <source>These runs were measured on different machines (another CPU or GPU): part of the difference may be the machine.</source>
        <translation>这些运行在不同的机器上测得（CPU 或 GPU 不同）：部分差异可能来自机器。</translation>
    </message>
    <message>
        <source>CPU threads</source>
        <translation>CPU 线程数</translation>
    </message>
</context>
<context>
    <name>ts::LocalDoctor</name>
    <message>
        <source>Hugging Face safetensors</source>
        <translation>Hugging Face safetensors</translation>
    </message>
    <message>
        <source>PyTorch .bin</source>
        <translation>PyTorch .bin</translation>
    </message>
    <message>
        <source>the CPU, %1 thread(s)</source>
        <translation>CPU（%1 个线程）</translation>
    </message>
    <message>
        <source> (CUDA not used: %1)</source>
        <translation>（未使用 CUDA：%1）</translation>
    </message>
    <message>
        <source>CUDA (device %1)</source>
        <translation>CUDA（设备 %1）</translation>
    </message>
    <message>
        <source>CUDA</source>
        <translation>CUDA</translation>
    </message>
    <message>
        <source>model file</source>
        <translation>模型文件</translation>
    </message>
    <message>
        <source>Pick the model again with Provider → Open a local model… (a GGUF file, a Hugging Face folder or a llama2.c checkpoint).</source>
        <translation>请通过“提供方 → 打开本地模型…”重新选择模型（GGUF 文件、Hugging Face 文件夹或 llama2.c 检查点）。</translation>
    </message>
    <message>
        <source>The provider names no model file.</source>
        <translation>该提供方没有指定模型文件。</translation>
    </message>
    <message>
        <source>The demo model (random weights) is created at its first use.</source>
        <translation>演示模型（随机权重）会在首次使用时创建。</translation>
    </message>
    <message>
        <source>%1 does not exist.</source>
        <translation>%1 不存在。</translation>
    </message>
    <message>
        <source>Check the path (moved or deleted?). </source>
        <translation>请检查路径（是否已被移动或删除？）。</translation>
    </message>
    <message>
        <source>%1 cannot be read by this user.</source>
        <translation>当前用户无法读取 %1。</translation>
    </message>
    <message>
        <source>Give your user read permission on it (chmod a+r), or copy it to a folder of yours.</source>
        <translation>请为你的用户授予它的读取权限（chmod a+r），或把它复制到你自己的文件夹中。</translation>
    </message>
    <message>
        <source>%1 is not a model TokenScope reads: %2</source>
        <translation>%1 不是 TokenScope 能读取的模型：%2</translation>
    </message>
    <message>
        <source>TokenScope reads GGUF files, Hugging Face folders (safetensors or .bin) and llama2.c checkpoints; download the model again if the file is cut short.</source>
        <translation>TokenScope 能读取 GGUF 文件、Hugging Face 文件夹（safetensors 或 .bin）和 llama2.c 检查点；如果文件不完整，请重新下载模型。</translation>
    </message>
    <message>
        <source>%1 · %2 · %3 layers · vocabulary %4 · %5 on disk (%6)</source>
        <translation>%1 · %2 · %3 层 · 词表 %4 · 磁盘占用 %5（%6）</translation>
    </message>
    <message>
        <source>engine</source>
        <translation>引擎</translation>
    </message>
    <message>
        <source>The engine cannot run this model: %1</source>
        <translation>引擎无法运行此模型：%1</translation>
    </message>
    <message>
        <source>Try the CPU backend, other runtime weights or a shorter context in Provider → Open a local model…; a model too large for the memory needs a smaller quantization.</source>
        <translation>请在“提供方 → 打开本地模型…”中尝试 CPU 后端、其他运行时权重或更短的上下文；内存放不下的模型需要更小的量化。</translation>
    </message>
    <message>
        <source>The model loads and runs on %1 (%2 ms; shared with the chat and Serve).</source>
        <translation>模型可以加载并在 %1 上运行（%2 毫秒；与对话和服务共用）。</translation>
    </message>
    <message>
        <source>server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <source>GET /health answered %1.</source>
        <translation>GET /health 返回了 %1。</translation>
    </message>
    <message>
        <source>Nothing answers on port %1.</source>
        <translation>端口 %1 上没有任何应答。</translation>
    </message>
    <message>
        <source>Stop and start Provider → Serve the local model; if another program holds the port, the server takes the next free one.</source>
        <translation>请在“提供方 → 以 OpenAI 兼容接口提供本地模型”中停止后重新启动；如果端口被其他程序占用，服务器会改用下一个空闲端口。</translation>
    </message>
    <message>
        <source>The server answers on port %1 and, as Serve settings say, refuses requests without the API key (401).</source>
        <translation>服务器在端口 %1 上应答，并按服务设置的要求拒绝不带 API 密钥的请求（401）。</translation>
    </message>
    <message>
        <source>GET /v1/models without the key answered %1, not 401.</source>
        <translation>不带密钥的 GET /v1/models 返回了 %1，而不是 401。</translation>
    </message>
    <message>
        <source>Restart Serve: it must require the key Serve settings ask for.</source>
        <translation>请重新启动服务：它必须要求服务设置中指定的密钥。</translation>
    </message>
    <message>
        <source>The server answers on port %1 and lists the model id &quot;%2&quot; (clients may also name &quot;local&quot;).</source>
        <translation>服务器在端口 %1 上应答，并列出了模型 ID“%2”（客户端也可以使用“local”）。</translation>
    </message>
    <message>
        <source>GET /v1/models answered %1 with %2, not the model id &quot;%3&quot;.</source>
        <translation>GET /v1/models 返回了 %1，列出的是 %2，而不是模型 ID“%3”。</translation>
    </message>
    <message>
        <source>no model</source>
        <translation>没有模型</translation>
    </message>
    <message>
        <source>Stop and start Provider → Serve the local model.</source>
        <translation>请在“提供方 → 以 OpenAI 兼容接口提供本地模型”中停止后重新启动。</translation>
    </message>
    <message>
        <source>Not serving: Provider → Serve the local model starts the server, then this step checks it.</source>
        <translation>未在提供服务：“提供方 → 以 OpenAI 兼容接口提供本地模型”会启动服务器，之后此步骤会检查它。</translation>
    </message>
    <message>
        <source>Skipped: the model file is not usable.</source>
        <translation>已跳过：模型文件不可用。</translation>
    </message>
</context>
<context>
    <name>ts::LocalEngineWorker</name>
    <message>
        <source>This local provider names no model: edit it and give a GGUF file, a Hugging Face folder or a llama2.c checkpoint.</source>
        <translation>这个本地提供方没有指定模型：请编辑它，填写 GGUF 文件、Hugging Face 文件夹或 llama2.c 检查点。</translation>
    </message>
    <message>
        <source>the demo model could not be created: </source>
        <translation>无法创建演示模型：</translation>
    </message>
    <message>
        <source>The local model cannot run: </source>
        <translation>本地模型无法运行：</translation>
    </message>
    <message>
        <source>The prompt has %1 tokens and the context holds %2: shorten the conversation or start a new chat.</source>
        <translation>提示有 %1 个词元，而上下文只能容纳 %2 个：请缩短对话或开始新的对话。</translation>
    </message>
    <message>
        <source>The engine failed: </source>
        <translation>推理引擎出错：</translation>
    </message>
    <message>
        <source>Speculative sampling cannot start: </source>
        <translation>推测采样无法启动：</translation>
    </message>
    <message>
        <source>Converting the speculative draft (%1)…</source>
        <translation>正在转换推测采样的草稿模型（%1）…</translation>
    </message>
    <message>
        <source>Loading the speculative draft (%1)…</source>
        <translation>正在加载推测采样的草稿模型（%1）…</translation>
    </message>
    <message>
        <source> The CUDA session was closed: the next message opens a new one. To run on the CPU instead, choose Backend: CPU in the provider&apos;s settings.</source>
        <translation>CUDA 会话已关闭：下一条消息会打开一个新的会话。若要改在 CPU 上运行，请在提供方设置中把“后端”选为 CPU。</translation>
    </message>
</context>
<context>
    <name>ts::LocalServing</name>
    <message>
        <source>The model cannot be served: </source>
        <translation>无法提供该模型服务：</translation>
    </message>
    <message>
        <source>No free port between %1 and %2 on %3.</source>
        <translation>%3 上 %1 到 %2 之间没有空闲端口。</translation>
    </message>
</context>
<context>
    <name>ts::ModelDownload</name>
    <message>
        <source>cannot create the folder %1</source>
        <translation>无法创建文件夹 %1</translation>
    </message>
    <message>
        <source>cannot reach %1: %2</source>
        <translation>无法连接 %1：%2</translation>
    </message>
    <message>
        <source>%1 is gated or private (HTTP %2): accept its terms on the hub or choose another repository</source>
        <translation>%1 需要授权或是私有仓库（HTTP %2）：请在模型中心接受其条款，或选择其他仓库</translation>
    </message>
    <message>
        <source>the hub has no file %1 in %2 at %3 (HTTP 404): check the repository and file names</source>
        <translation>模型中心的 %2（版本 %3）中没有文件 %1（HTTP 404）：请检查仓库名和文件名</translation>
    </message>
    <message>
        <source>the hub answered HTTP %1</source>
        <translation>模型中心返回 HTTP %1</translation>
    </message>
    <message>
        <source>the disk is full: %1 needs %2 more, %3 is free on %4; free some space and resume (the partial file is kept)</source>
        <translation>磁盘空间不足：%1 还需要 %2，%4 上只剩 %3；请释放空间后继续下载（已下载的部分会保留）</translation>
    </message>
    <message>
        <source>cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>writing %1 failed at %2: %3 — the disk may be full; free some space and resume (the partial file is kept)</source>
        <translation>写入 %1 时在 %2 处失败：%3 — 磁盘可能已满；请释放空间后继续下载（已下载的部分会保留）</translation>
    </message>
    <message>
        <source>the download failed with HTTP %1 at %2</source>
        <translation>下载在 %2 处失败，HTTP %1</translation>
    </message>
    <message>
        <source>the connection dropped at %1 of %2 (%3); resume continues from there</source>
        <translation>连接在 %1 / %2 处中断（%3）；继续下载会从该处接着下载</translation>
    </message>
    <message>
        <source>the file has %1 bytes, the hub said %2; resume or download again</source>
        <translation>文件有 %1 字节，而模型中心给出的是 %2；请继续下载或重新下载</translation>
    </message>
    <message>
        <source>size checked; the hub gave no sha256 for this file</source>
        <translation>已核对大小；模型中心没有提供此文件的 sha256</translation>
    </message>
    <message>
        <source>checksum mismatch: the hub says sha256 %1, the file has %2; the damaged file was removed — download it again</source>
        <translation>校验和不一致：模型中心给出的 sha256 是 %1，文件的是 %2；损坏的文件已删除 — 请重新下载</translation>
    </message>
    <message>
        <source>sha256 verified</source>
        <translation>sha256 校验通过</translation>
    </message>
    <message>
        <source>cannot move %1 to %2</source>
        <translation>无法把 %1 移动到 %2</translation>
    </message>
</context>
<context>
    <name>ts::ModelListFetcher</name>
    <message>
        <source>GET %1 answered HTTP %2: %3</source>
        <translation>GET %1 返回 HTTP %2:%3</translation>
    </message>
    <message>
        <source>GET %1 failed: %2</source>
        <translation>GET %1 失败:%2</translation>
    </message>
    <message>
        <source>GET %1 listed no models; type a model id</source>
        <translation>GET %1 未列出任何模型;请输入模型 ID</translation>
    </message>
</context>
<context>
    <name>ts::ModelManager</name>
    <message>
        <source>Automatic (CUDA)</source>
        <translation>自动（CUDA）</translation>
    </message>
    <message>
        <source>Automatic (CPU: no usable CUDA device)</source>
        <translation>自动（CPU：没有可用的 CUDA 设备）</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>CUDA %1: %2 (%3)</source>
        <translation>CUDA %1：%2（%3）</translation>
    </message>
    <message>
        <source>%1 × %2</source>
        <translation>%1 × %2</translation>
    </message>
    <message>
        <source> (Baichuan2, NormHead)</source>
        <translation>（Baichuan2，NormHead）</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数量</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <source>Width</source>
        <translation>宽度</translation>
    </message>
    <message>
        <source>%1 (FFN %2)</source>
        <translation>%1（FFN %2）</translation>
    </message>
    <message>
        <source>Vocabulary</source>
        <translation>词表</translation>
    </message>
    <message>
        <source>%1 tokens</source>
        <translation>%1 个词元</translation>
    </message>
    <message>
        <source>Context length</source>
        <translation>上下文长度</translation>
    </message>
    <message>
        <source>not stated</source>
        <translation>未注明</translation>
    </message>
    <message>
        <source>Positions</source>
        <translation>位置编码</translation>
    </message>
    <message>
        <source>Stored weights</source>
        <translation>存储的权重</translation>
    </message>
    <message>
        <source>On disk</source>
        <translation>磁盘占用</translation>
    </message>
    <message>
        <source> + workspace %1</source>
        <translation> + 工作区 %1</translation>
    </message>
    <message>
        <source> on the device, which has %1 free.</source>
        <translation>（设备上），设备当前空闲 %1。</translation>
    </message>
    <message>
        <source> on the device.</source>
        <translation>（设备上）。</translation>
    </message>
    <message>
        <source>; this machine has %1 available.</source>
        <translation>；本机可用内存 %1。</translation>
    </message>
    <message>
        <source> Converting from the stored weights needs up to %1 while loading (not when the converted cache exists).</source>
        <translation> 从存储的权重转换时，加载过程中最多需要 %1（已有转换缓存时不需要）。</translation>
    </message>
    <message>
        <source> It does not fit: choose int4 or int8 weights, an int8 KV cache or a shorter context.</source>
        <translation> 内存不够：请选择 int4 或 int8 权重、int8 KV 缓存或更短的上下文。</translation>
    </message>
    <message>
        <source>Conversion cache: empty (limit %1, in %2)</source>
        <translation>转换缓存：空（上限 %1，位于 %2）</translation>
    </message>
    <message>
        <source>Conversion cache: %1 in %2 file(s) of at most %3, in %4; the least recently used go first</source>
        <translation>转换缓存：%2 个文件共 %1，上限 %3，位于 %4；最久未用的先被移除</translation>
    </message>
    <message>
        <source>Hugging Face safetensors</source>
        <translation>Hugging Face safetensors</translation>
    </message>
    <message>
        <source>llama2.c checkpoint</source>
        <translation>llama2.c 检查点</translation>
    </message>
    <message>
        <source>Classifier</source>
        <translation>分类头</translation>
    </message>
    <message>
        <source>as stored</source>
        <translation>按文件存储</translation>
    </message>
    <message>
        <source>PyTorch checkpoint (.bin)</source>
        <translation>PyTorch 检查点（.bin）</translation>
    </message>
    <message>
        <source>In memory: %1, loaded in %2 s with %3 weights: %4 (matrices %5 + token embeddings and norms %6)</source>
        <translation>已载入内存：%1，用时 %2 秒，%3 权重：%4（矩阵 %5 + 词元嵌入和归一化层 %6）</translation>
    </message>
    <message>
        <source>; estimated before loading: %1</source>
        <translation>；加载前估计：%1</translation>
    </message>
    <message>
        <source>%1 · KV heads %2 · head size %3</source>
        <translation>%1 · KV 头 %2 · 头维度 %3</translation>
    </message>
    <message>
        <source>Attention heads</source>
        <translation>注意力头</translation>
    </message>
    <message>
        <source>%1 tokens, no tokenizer</source>
        <translation>%1 个词元，无分词器</translation>
    </message>
    <message>
        <source>NormHead, normalized at load</source>
        <translation>NormHead，加载时归一化</translation>
    </message>
    <message>
        <source>Read without running its pickle.</source>
        <translation>读取时不执行其 pickle。</translation>
    </message>
    <message>
        <source>%1 query heads share %2 key/value heads (grouped-query attention); each head has %3 dimensions.</source>
        <translation>%1 个查询头共享 %2 个键/值头（分组查询注意力）；每个头有 %3 维。</translation>
    </message>
    <message>
        <source>Every query head has its own key/value head; each head has %1 dimensions.</source>
        <translation>每个查询头都有自己的键/值头；每个头有 %1 维。</translation>
    </message>
    <message>
        <source>Each classifier row is scaled to unit length at load, in f32.</source>
        <translation>加载时以 f32 将分类头的每一行缩放为单位长度。</translation>
    </message>
    <message>
        <source>Needs %1: weights %2 (matrices, embeddings and norms) + KV cache %3</source>
        <translation>需要 %1：权重 %2（矩阵、嵌入和归一化层）+ KV 缓存 %3</translation>
    </message>
</context>
<context>
    <name>ts::OpenAiClient</name>
    <message>
        <source>Invalid base URL: </source>
        <translation>无效的基础 URL:</translation>
    </message>
    <message>
        <source>base URL: </source>
        <translation>基础 URL:</translation>
    </message>
    <message>
        <source>the API key had white space around it; it was trimmed before sending</source>
        <translation>API 密钥两端有空白;已在发送前去除</translation>
    </message>
    <message>
        <source>the server answered a streaming request with one %1 body; TTFT then equals E2E</source>
        <translation>服务器对流式请求返回了单个 %1 响应体;因此 TTFT 等于 E2E</translation>
    </message>
    <message>
        <source>skipped a data line that is not valid JSON (%1): %2</source>
        <translation>跳过了一行不是有效 JSON 的数据(%1):%2</translation>
    </message>
    <message>
        <source>The server reported an error in the middle of the stream: </source>
        <translation>服务器在流的中途报告了错误:</translation>
    </message>
    <message>
        <source>. The partial answer is kept.</source>
        <translation>。已保留部分回答。</translation>
    </message>
    <message>
        <source>HTTP 429</source>
        <translation>HTTP 429</translation>
    </message>
    <message>
        <source>Rate limited (HTTP 429) at %1 after %2 attempt(s): %3.</source>
        <translation>在 %1 被限流(HTTP 429),已尝试 %2 次:%3。</translation>
    </message>
    <message>
        <source> The server asks to wait %1 before retrying.</source>
        <translation> 服务器要求等待 %1 后再重试。</translation>
    </message>
    <message>
        <source>the server rejected stream_options (HTTP 400); retried without it and will not send it to this provider again</source>
        <translation>服务器拒绝了 stream_options(HTTP 400);已去掉后重试,并且不会再向此提供方发送它</translation>
    </message>
    <message>
        <source>Authentication failed (HTTP %1) at %2: %3. %4</source>
        <translation>在 %2 认证失败(HTTP %1):%3。%4</translation>
    </message>
    <message>
        <source>Not found (HTTP 404) at %1. The base URL must be the part before /v1/chat/completions (for example https://taotoken.net/api); it is now &apos;%2&apos;. Check for a missing path prefix or a duplicated /v1.%3</source>
        <translation>在 %1 未找到(HTTP 404)。基础 URL 必须是 /v1/chat/completions 之前的部分(例如 https://taotoken.net/api);当前为 &apos;%2&apos;。请检查是否缺少路径前缀或重复了 /v1。%3</translation>
    </message>
    <message>
        <source> Server said: </source>
        <translation> 服务器返回:</translation>
    </message>
    <message>
        <source>HTTP %1</source>
        <translation>HTTP %1</translation>
    </message>
    <message>
        <source>Server error (HTTP %1) at %2 after %3 attempt(s): %4. This is the provider&apos;s side; try again later or another provider.</source>
        <translation>在 %2 发生服务器错误(HTTP %1),已尝试 %3 次:%4。这是提供方一侧的问题;请稍后重试或换一个提供方。</translation>
    </message>
    <message>
        <source>The server refused the request (HTTP %1) at %2: %3</source>
        <translation>服务器在 %2 拒绝了请求(HTTP %1):%3</translation>
    </message>
    <message>
        <source>The connection to %1 was lost in the middle of the answer (%2). The partial answer is kept; it was not replayed.</source>
        <translation>与 %1 的连接在应答途中断开(%2)。已保留部分回答;不会重放请求。</translation>
    </message>
    <message>
        <source>Could not connect to %1: connection refused. Is the server running, and is the host and port in the base URL (%2) right?</source>
        <translation>无法连接到 %1:连接被拒绝。服务器是否在运行?基础 URL(%2)中的主机和端口是否正确?</translation>
    </message>
    <message>
        <source>The host &apos;%1&apos; was not found (DNS lookup failed). Check the base URL (%2).</source>
        <translation>找不到主机 &apos;%1&apos;(DNS 解析失败)。请检查基础 URL(%2)。</translation>
    </message>
    <message>
        <source>%1 closed the connection before answering %2.</source>
        <translation>%1 在应答 %2 之前关闭了连接。</translation>
    </message>
    <message>
        <source>The TLS handshake with %1 failed: %2. Is the scheme (http/https) in the base URL right?</source>
        <translation>与 %1 的 TLS 握手失败:%2。基础 URL 中的协议(http/https)是否正确?</translation>
    </message>
    <message>
        <source>Network error talking to %1: %2.</source>
        <translation>与 %1 通信时出现网络错误:%2。</translation>
    </message>
    <message>
        <source> (%1 attempts)</source>
        <translation>(尝试 %1 次)</translation>
    </message>
    <message>
        <source>The response from %1 is not an OpenAI chat completion (%2): %3</source>
        <translation>来自 %1 的响应不是 OpenAI chat completion(%2):%3</translation>
    </message>
    <message>
        <source>The server reported an error: </source>
        <translation>服务器报告了错误:</translation>
    </message>
    <message>
        <source>the stream ended without `data: [DONE]` and without a finish_reason: the answer may be cut short</source>
        <translation>流在没有 `data: [DONE]` 和 finish_reason 的情况下结束:回答可能不完整</translation>
    </message>
    <message>
        <source>the stream ended without `data: [DONE]`</source>
        <translation>流在没有 `data: [DONE]` 的情况下结束</translation>
    </message>
    <message>
        <source>attempt %1 failed (%2); retried after %3</source>
        <translation>第 %1 次尝试失败(%2);%3 后已重试</translation>
    </message>
    <message>
        <source>The model &apos;%1&apos; is not available at %2 (server: %3).</source>
        <translation>模型 &apos;%1&apos; 在 %2 不可用(服务器:%3)。</translation>
    </message>
    <message>
        <source> The endpoint offers: </source>
        <translation> 该端点提供:</translation>
    </message>
    <message>
        <source>No complete answer from %1 within the total limit of %2. %3</source>
        <translation>在总时限 %2 内未从 %1 得到完整回答。%3</translation>
    </message>
    <message>
        <source>The partial answer is kept.</source>
        <translation>已保留部分回答。</translation>
    </message>
    <message>
        <source>Nothing had arrived.</source>
        <translation>尚未收到任何内容。</translation>
    </message>
    <message>
        <source>connect timeout</source>
        <translation>连接超时</translation>
    </message>
    <message>
        <source>Could not send the request to %1 within %2 (connect timeout). Is the host reachable?</source>
        <translation>未能在 %2 内将请求发送到 %1(连接超时)。主机是否可达?</translation>
    </message>
    <message>
        <source>first-byte timeout</source>
        <translation>首字节超时</translation>
    </message>
    <message>
        <source>%1 accepted the request but sent no token within %2 (first-byte timeout).</source>
        <translation>%1 接受了请求,但在 %2 内没有发送任何 token(首字节超时)。</translation>
    </message>
    <message>
        <source>The stream from %1 stalled: no data for %2 after %3 chunk(s). The partial answer is kept.</source>
        <translation>来自 %1 的流停滞:在 %3 个块之后 %2 内没有数据。已保留部分回答。</translation>
    </message>
    <message>
        <source> The available ids are unknown: %1</source>
        <translation> 可用的模型 ID 未知:%1</translation>
    </message>
</context>
<context>
    <name>ts::PreferencesController</name>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Switching the language now stops %1. Switch now? The conversation, a running server and loaded models are kept.</source>
        <translation>现在切换语言会停止%1。现在切换吗？对话、正在运行的服务器和已加载的模型都会保留。</translation>
    </message>
</context>
<context>
    <name>ts::ProviderController</name>
    <message>
        <source>%1 model(s) listed by the endpoint.</source>
        <translation>端点列出了 %1 个模型。</translation>
    </message>
    <message>
        <source>Providers not saved: </source>
        <translation>提供方未保存:</translation>
    </message>
    <message>
        <source>Fetching the model list…</source>
        <translation>正在获取模型列表…</translation>
    </message>
    <message>
        <source>The key works: </source>
        <translation>密钥可用:</translation>
    </message>
    <message>
        <source> answered.</source>
        <translation> 已应答。</translation>
    </message>
    <message>
        <source>no answer</source>
        <translation>无应答</translation>
    </message>
    <message>
        <source> (white space around it was removed)</source>
        <translation>(已去除两端空白)</translation>
    </message>
    <message>
        <source>%1 reads its key from %2.</source>
        <translation>%1 从 %2 读取密钥。</translation>
    </message>
    <message>
        <source>API key not saved</source>
        <translation>API 密钥未保存</translation>
    </message>
    <message>
        <source>Key saved to </source>
        <translation>密钥已保存到 </translation>
    </message>
    <message>
        <source>The key for %1 is stored in the keychain%2.</source>
        <translation>%1 的密钥已存入钥匙串%2。</translation>
    </message>
    <message>
        <source>Connection doctor — </source>
        <translation>连接诊断 — </translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>What happened / fix</source>
        <translation>发生了什么 / 如何修复</translation>
    </message>
    <message>
        <source>Run again</source>
        <translation>重新运行</translation>
    </message>
    <message>
        <source>
Fix: </source>
        <translation>
修复:</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>%1 · stream_options: %2 · usage chunk: %3</source>
        <translation>%1 · stream_options:%2 · usage 块:%3</translation>
    </message>
    <message>
        <source>All steps passed</source>
        <translation>所有步骤均通过</translation>
    </message>
    <message>
        <source>Problems found</source>
        <translation>发现问题</translation>
    </message>
    <message>
        <source>accepted</source>
        <translation>接受</translation>
    </message>
    <message>
        <source>rejected</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>sent</source>
        <translation>已发送</translation>
    </message>
    <message>
        <source>not sent</source>
        <translation>未发送</translation>
    </message>
    <message>
        <source>Running…</source>
        <translation>正在运行…</translation>
    </message>
    <message>
        <source>Local model doctor — </source>
        <translation>本地模型诊断 — </translation>
    </message>
    <message>
        <source>skipped</source>
        <translation>已跳过</translation>
    </message>
    <message>
        <source>PASS</source>
        <translation>通过</translation>
    </message>
    <message>
        <source>FAIL</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Reading the model file and loading it…</source>
        <translation>正在读取并加载模型文件…</translation>
    </message>
    <message>
        <source>%1 runs on the CPU now (Provider → Edit… chooses the backend).</source>
        <translation>%1 现在在 CPU 上运行（在“提供方 → 编辑…”中选择后端）。</translation>
    </message>
</context>
<context>
    <name>ts::ProviderKeys</name>
    <message>
        <source>The API key could not be read: </source>
        <translation>无法读取 API 密钥:</translation>
    </message>
</context>
<context>
    <name>ts::RepoDownload</name>
    <message>
        <source>cannot create the folder %1</source>
        <translation>无法创建文件夹 %1</translation>
    </message>
    <message>
        <source>%1 has no weights TokenScope reads: expected model.safetensors, pytorch_model.bin or their .index.json shards</source>
        <translation>%1 中没有 TokenScope 能读取的权重：应为 model.safetensors、pytorch_model.bin 或它们带 .index.json 的分片</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s), </source>
        <translation>
            <numerusform>%n 个文件，</numerusform>
        </translation>
    </message>
    <message>
        <source>sha256 verified</source>
        <translation>sha256 校验通过</translation>
    </message>
    <message>
        <source>sizes checked (the hub gave no sha256 for some)</source>
        <translation>已核对大小（模型中心没有给出部分文件的 sha256）</translation>
    </message>
    <message>
        <source>%1 is a %2 checkpoint (quantization_config in config.json), which TokenScope does not read; nothing more was downloaded. Download the full-precision %3 instead: load it with weights int4, or write a 4-bit GGUF from it with `tokenscope-cli convert --to gguf --type q4_k`.</source>
        <translation>%1 是 %2 检查点（config.json 中有 quantization_config），TokenScope 不能读取；没有继续下载。请改为下载全精度的 %3：以 int4 权重加载，或用 `tokenscope-cli convert --to gguf --type q4_k` 把它转换为 4 位 GGUF。</translation>
    </message>
    <message>
        <source>%1: expected shard file names in weight_map, found &apos;%2&apos;</source>
        <translation>%1：weight_map 中应为分片文件名，实际为 &apos;%2&apos;</translation>
    </message>
    <message>
        <source>%1: expected a weight_map naming the shards, found none</source>
        <translation>%1：应有列出各分片的 weight_map，但没有找到</translation>
    </message>
</context>
<context>
    <name>ts::ServingController</name>
    <message>
        <source>Serve the local model</source>
        <translation>提供本地模型服务</translation>
    </message>
    <message>
        <source>%1 is a remote endpoint. Choose a local provider (a model file) to serve it to other tools.</source>
        <translation>%1 是远程端点。请选择本地提供方（模型文件）才能把它提供给其他工具使用。</translation>
    </message>
    <message>
        <source>Loading %1 to serve it…</source>
        <translation>正在加载 %1 以提供服务…</translation>
    </message>
    <message>
        <source>Stopped serving the local model.</source>
        <translation>已停止本地模型服务。</translation>
    </message>
    <message>
        <source>Anyone who can reach this computer over the network can use the model. Require an API key, or listen on this computer only (Provider → Serve settings…).</source>
        <translation>任何能通过网络访问这台计算机的人都可以使用该模型。请要求 API 密钥，或仅在本机监听（提供方 → 服务设置…）。</translation>
    </message>
    <message>
        <source>Serve settings require an API key, but the keychain cannot be used: %1.

Serve did not start. Make the keychain available, or turn off &quot;Require an API key&quot; under Provider → Serve settings….</source>
        <translation>服务设置要求 API 密钥，但无法使用钥匙串：%1。

服务未启动。请让钥匙串可用，或在“提供方 → 服务设置…”中关闭“要求 API 密钥”。</translation>
    </message>
    <message>
        <source>Reading the key for Serve from the keychain…</source>
        <translation>正在从钥匙串读取服务的密钥…</translation>
    </message>
    <message>
        <source>Serve did not start: </source>
        <translation>服务未启动：</translation>
    </message>
    <message>
        <source>Serve starts again once the previous server has stopped…</source>
        <translation>上一个服务器停止后，服务将重新启动…</translation>
    </message>
    <message>
        <source>Stopping the server: its requests are being cancelled…</source>
        <translation>正在停止服务器：正在取消其请求…</translation>
    </message>
    <message>
        <source>A new key for Serve is in the keychain: the server uses it from its next start.</source>
        <translation>服务的新密钥已存入钥匙串：服务器下次启动时开始使用它。</translation>
    </message>
    <message>
        <source>Serve settings saved: they apply the next time Serve starts.</source>
        <translation>服务设置已保存：将在下次启动服务时生效。</translation>
    </message>
    <message>
        <source>Serve settings saved.</source>
        <translation>服务设置已保存。</translation>
    </message>
    <message>
        <source>WARNING: serving the local model to every network (port %1) without an API key.</source>
        <translation>警告：正在向所有网络（端口 %1）提供本地模型服务，且未要求 API 密钥。</translation>
    </message>
    <message>
        <source>TokenScope server</source>
        <translation>TokenScope 服务器</translation>
    </message>
    <message>
        <source>The local server runs: click to show or hide its panel</source>
        <translation>本地服务器正在运行：单击以显示或隐藏其面板</translation>
    </message>
    <message>
        <source>error: %1</source>
        <translation>错误：%1</translation>
    </message>
    <message>
        <source>A served request was not recorded: </source>
        <translation>一个已处理的服务请求未被记录：</translation>
    </message>
    <message>
        <source>Serving the local model at %1 for this computer only; requests need the API key (Provider → Serve the local model stops it).</source>
        <translation>正在 %1 提供本地模型服务，仅限本机；请求需要 API 密钥（在“提供方 → 以 OpenAI 兼容接口提供本地模型”中停止）。</translation>
    </message>
    <message>
        <source>Serving the local model at %1 and on every network of this computer; requests need the API key (Provider → Serve the local model stops it).</source>
        <translation>正在 %1 及本机的所有网络上提供本地模型服务；请求需要 API 密钥（在“提供方 → 以 OpenAI 兼容接口提供本地模型”中停止）。</translation>
    </message>
    <message>
        <source>Serving the local model at %1 for this computer only (OpenAI-compatible; Provider → Serve the local model stops it).</source>
        <translation>正在 %1 提供本地模型服务，仅限本机（OpenAI 兼容；在“提供方 → 以 OpenAI 兼容接口提供本地模型”中停止）。</translation>
    </message>
</context>
<context>
    <name>ts::WindowSession</name>
    <message>
        <source>Stopping the answer: the language switches once it has stopped…</source>
        <translation>正在停止回答：停止后即切换语言…</translation>
    </message>
    <message>
        <source>Language switched: the conversation and what is loaded or served are kept.</source>
        <translation>语言已切换：对话以及已加载或正在提供服务的内容均已保留。</translation>
    </message>
</context>
<context>
    <name>ts::config</name>
    <message>
        <source>provider: unknown provider &apos;%1&apos;; expected one of %2, or give base_url for a new provider</source>
        <translation>provider:未知的提供方 &apos;%1&apos;;应为 %2 之一,或为新提供方给出 base_url</translation>
    </message>
    <message>
        <source>%1:%2:%3: %4</source>
        <translation>%1:%2:%3: %4</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>not valid JSON: </source>
        <translation>不是有效的 JSON:</translation>
    </message>
    <message>
        <source>expected a JSON object at the top level, found an array</source>
        <translation>顶层应为 JSON 对象,实际为数组</translation>
    </message>
    <message>
        <source>%1: unknown setting, ignored</source>
        <translation>%1:未知设置,已忽略</translation>
    </message>
    <message>
        <source>not valid TOML: </source>
        <translation>不是有效的 TOML:</translation>
    </message>
    <message>
        <source>%1: expected a [table], ignored</source>
        <translation>%1:应为 [表],已忽略</translation>
    </message>
    <message>
        <source>[%1] %2: unknown setting, ignored</source>
        <translation>[%1] %2:未知设置,已忽略</translation>
    </message>
    <message>
        <source>cannot open: </source>
        <translation>无法打开:</translation>
    </message>
    <message>
        <source>cannot write %1: %2</source>
        <translation>无法写入 %1:%2</translation>
    </message>
    <message>
        <source>text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>true or false</source>
        <translation>true 或 false</translation>
    </message>
    <message>
        <source>a whole number from %1 to %2</source>
        <translation>%1 到 %2 之间的整数</translation>
    </message>
    <message>
        <source>a number from %1 to %2</source>
        <translation>%1 到 %2 之间的数</translation>
    </message>
    <message>
        <source>%1: expected %2, found %3</source>
        <translation>%1:应为%2,实际为 %3</translation>
    </message>
    <message>
        <source>an empty string</source>
        <translation>空字符串</translation>
    </message>
    <message>
        <source>%1: expected %2, found &apos;%3&apos;</source>
        <translation>%1:应为%2,实际为 &apos;%3&apos;</translation>
    </message>
    <message>
        <source>environment %1: %2</source>
        <translation>环境变量 %1:%2</translation>
    </message>
    <message>
        <source>built-in default</source>
        <translation>内置默认值</translation>
    </message>
    <message>
        <source>config file </source>
        <translation>配置文件 </translation>
    </message>
    <message>
        <source>environment variable </source>
        <translation>环境变量 </translation>
    </message>
    <message>
        <source>set in the UI</source>
        <translation>在界面中设置</translation>
    </message>
    <message>
        <source>command line </source>
        <translation>命令行 </translation>
    </message>
    <message>
        <source>named by TOKENSCOPE_CONFIG</source>
        <translation>由 TOKENSCOPE_CONFIG 指定</translation>
    </message>
    <message>
        <source>found in the folder TokenScope was started from</source>
        <translation>在启动 TokenScope 的文件夹中找到</translation>
    </message>
    <message>
        <source>given on the command line or imported</source>
        <translation>由命令行给出或已导入</translation>
    </message>
</context>
<context>
    <name>ts::saveBytes</name>
    <message>
        <source>cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
</context>
<context>
    <name>ts::ui</name>
    <message>
        <source>decode tok/s</source>
        <translation>解码 tok/s</translation>
    </message>
    <message>
        <source>prefill tok/s</source>
        <translation>预填充 tok/s</translation>
    </message>
    <message>
        <source>TTFT ms</source>
        <translation>TTFT 毫秒</translation>
    </message>
    <message>
        <source>TPOT ms</source>
        <translation>TPOT 毫秒</translation>
    </message>
    <message>
        <source>ITL p50 ms</source>
        <translation>ITL p50 毫秒</translation>
    </message>
    <message>
        <source>ITL p99 ms</source>
        <translation>ITL p99 毫秒</translation>
    </message>
    <message>
        <source>peak memory MB</source>
        <translation>峰值内存 MB</translation>
    </message>
    <message>
        <source>long prompts&apos; TTFT p50 ms</source>
        <translation>长提示词 TTFT p50 毫秒</translation>
    </message>
    <message>
        <source>long prompts&apos; TTFT p99 ms</source>
        <translation>长提示词 TTFT p99 毫秒</translation>
    </message>
    <message>
        <source>streams&apos; TPOT p50 ms</source>
        <translation>流 TPOT p50 毫秒</translation>
    </message>
    <message>
        <source>streams&apos; TPOT p99 ms</source>
        <translation>流 TPOT p99 毫秒</translation>
    </message>
    <message>
        <source>no measurable difference</source>
        <translation>无可测差异</translation>
    </message>
    <message>
        <source>%1: top-1 agreement %2 %, mean KL %3 over %4 positions</source>
        <translation>%1：top-1 一致率 %2 %，平均 KL %3（%4 个位置）</translation>
    </message>
    <message>
        <source>%1: greedy output identical; acceptance %2 %</source>
        <translation>%1：贪心输出一致；接受率 %2 %</translation>
    </message>
    <message>
        <source>%1: greedy output DIFFERS from the baseline&apos;s; acceptance %2 %</source>
        <translation>%1：贪心输出与基线不同；接受率 %2 %</translation>
    </message>
    <message>
        <source>%1 · weights %2 · KV %3 · %4</source>
        <translation>%1 · 权重 %2 · KV %3 · %4</translation>
    </message>
    <message>
        <source>1 thread</source>
        <translation>1 个线程</translation>
    </message>
    <message>
        <source>%1 threads</source>
        <translation>%1 个线程</translation>
    </message>
    <message>
        <source>Lever lab: %1</source>
        <translation>杠杆实验：%1</translation>
    </message>
    <message>
        <source>Baseline: %1</source>
        <translation>基线：%1</translation>
    </message>
    <message>
        <source>Variant</source>
        <translation>变体</translation>
    </message>
    <message>
        <source>Metric</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Baseline</source>
        <translation>基线</translation>
    </message>
    <message>
        <source>Variant median</source>
        <translation>变体中位数</translation>
    </message>
    <message>
        <source>Change [95 % interval]</source>
        <translation>变化 [95 % 区间]</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>预测</translation>
    </message>
    <message>
        <source>Prediction error</source>
        <translation>预测误差</translation>
    </message>
</context>
<context>
    <name>ts::ui::AcceptanceChart</name>
    <message>
        <source>Accepted drafts per step</source>
        <translation>每步被接受的草稿词元数</translation>
    </message>
    <message>
        <source>steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>drafted tokens the target accepted</source>
        <translation>目标模型接受的草稿词元数</translation>
    </message>
    <message>
        <source>Each speculative step drafts K tokens and the target verifies them in one pass: a bar is the number of steps that kept n of the drafts (every step also adds one token of the target&apos;s own).</source>
        <translation>每个推测步骤先起草 K 个词元，目标模型一次前向即可验证：每根柱子表示保留了 n 个草稿词元的步数（每一步还会加入一个目标模型自己生成的词元）。</translation>
    </message>
</context>
<context>
    <name>ts::ui::ApiKeyDialog</name>
    <message>
        <source>API key — </source>
        <translation>API 密钥 — </translation>
    </message>
    <message>
        <source>Store the key in the system &amp;keychain (recommended)</source>
        <translation>将密钥存入系统钥匙串(&amp;K)(推荐)</translation>
    </message>
    <message>
        <source>Read the key from an &amp;environment variable</source>
        <translation>从环境变量读取密钥(&amp;E)</translation>
    </message>
    <message>
        <source>Save the key in a &amp;plaintext file (not recommended)</source>
        <translation>将密钥保存在明文文件中(&amp;P)(不推荐)</translation>
    </message>
    <message>
        <source>The key will be written unencrypted to %1, readable only by you (0600). Anyone with your account, or a backup of your home folder, can read it.</source>
        <translation>密钥将以未加密形式写入 %1,仅您本人可读(0600)。任何能使用您的账户或拿到您主目录备份的人都能读取它。</translation>
    </message>
    <message>
        <source>sk-…</source>
        <translation>sk-…</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>API &amp;key</source>
        <translation>API 密钥(&amp;K)</translation>
    </message>
    <message>
        <source>&amp;Variable</source>
        <translation>变量(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Test</source>
        <translation>测试(&amp;T)</translation>
    </message>
    <message>
        <source>Send one tiny request (max_tokens 1) with this key</source>
        <translation>用此密钥发送一个极小的请求(max_tokens 1)</translation>
    </message>
    <message>
        <source>Testing…</source>
        <translation>正在测试…</translation>
    </message>
    <message>
        <source>Unavailable: </source>
        <translation>不可用:</translation>
    </message>
    <message>
        <source>White space around the key (a pasted newline?) will be removed before it is saved.</source>
        <translation>密钥两端的空白(是否粘贴了换行?)将在保存前去除。</translation>
    </message>
    <message>
        <source>%1 is not set in this environment: run `export %1=&lt;key&gt;` before starting TokenScope.</source>
        <translation>当前环境中未设置 %1:请在启动 TokenScope 之前运行 `export %1=&lt;key&gt;`。</translation>
    </message>
</context>
<context>
    <name>ts::ui::BenchmarkDialog</name>
    <message>
        <source>Benchmark</source>
        <translation>基准测试</translation>
    </message>
    <message>
        <source>Endpoint: %1 · model %2</source>
        <translation>端点：%1 · 模型 %2</translation>
    </message>
    <message>
        <source>Write a short story about a robot who learns to paint.</source>
        <translation>写一个关于机器人学画画的短篇故事。</translation>
    </message>
    <message>
        <source>&amp;Prompt</source>
        <translation>提示(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Requests per step</source>
        <translation>每步请求数(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Warm-up requests</source>
        <translation>预热请求数(&amp;W)</translation>
    </message>
    <message>
        <source>Max &amp;tokens</source>
        <translation>最大词元数(&amp;T)</translation>
    </message>
    <message>
        <source>Concurrency sweep</source>
        <translation>并发扫描</translation>
    </message>
    <message>
        <source>Request-rate sweep (req/s)</source>
        <translation>请求速率扫描（请求/秒）</translation>
    </message>
    <message>
        <source>Prompt-length sweep (words)</source>
        <translation>提示长度扫描（词）</translation>
    </message>
    <message>
        <source>&amp;Sweep</source>
        <translation>扫描(&amp;S)</translation>
    </message>
    <message>
        <source>One step per value, comma-separated</source>
        <translation>每个值一步，以逗号分隔</translation>
    </message>
    <message>
        <source>&amp;Values</source>
        <translation>取值(&amp;V)</translation>
    </message>
    <message>
        <source>Rate sweeps: gamma shape of the gaps; 1 is Poisson, smaller is burstier</source>
        <translation>速率扫描：间隔的伽马分布形状参数；1 为泊松过程，越小越突发</translation>
    </message>
    <message>
        <source>&amp;Burstiness</source>
        <translation>突发度(&amp;B)</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source> ms</source>
        <translation> 毫秒</translation>
    </message>
    <message>
        <source>SLO: TTFT at most</source>
        <translation>SLO：TTFT 不超过</translation>
    </message>
    <message>
        <source>SLO: TPOT at most</source>
        <translation>SLO：TPOT 不超过</translation>
    </message>
    <message>
        <source>&amp;Start</source>
        <translation>开始(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Cancel</source>
        <translation>取消(&amp;C)</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>取值</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>TTFT p50</source>
        <translation>TTFT p50</translation>
    </message>
    <message>
        <source>TTFT p99</source>
        <translation>TTFT p99</translation>
    </message>
    <message>
        <source>TPOT p50</source>
        <translation>TPOT p50</translation>
    </message>
    <message>
        <source>TPOT p99</source>
        <translation>TPOT p99</translation>
    </message>
    <message>
        <source>ITL p50</source>
        <translation>ITL p50</translation>
    </message>
    <message>
        <source>E2E p50</source>
        <translation>E2E p50</translation>
    </message>
    <message>
        <source>Output tok/s</source>
        <translation>输出 tok/s</translation>
    </message>
    <message>
        <source>Goodput req/s</source>
        <translation>有效吞吐 请求/秒</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Save the benchmark</source>
        <translation>保存基准测试</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>Values: expected positive numbers separated by commas, found &apos;%1&apos;</source>
        <translation>取值：应为以逗号分隔的正数，实际为“%1”</translation>
    </message>
    <message>
        <source>Values: give at least one step</source>
        <translation>取值：至少给出一步</translation>
    </message>
    <message>
        <source>Step %1 of %2: %3 of %4 requests</source>
        <translation>第 %1/%2 步：%3/%4 个请求</translation>
    </message>
    <message>
        <source>Cancelled; the finished steps are kept.</source>
        <translation>已取消；已完成的步骤会保留。</translation>
    </message>
    <message numerus="yes">
        <source>Done: %n step(s), recorded in the run store.</source>
        <translation>
            <numerusform>完成：%n 步，已记录到运行记录库。</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing to save yet: run a benchmark first.</source>
        <translation>还没有可保存的内容：请先运行基准测试。</translation>
    </message>
    <message>
        <source>Prefill-chunk sweep (tokens per step; 0: whole prompts)</source>
        <translation>预填充分块扫描（每步令牌数；0：整段提示）</translation>
    </message>
    <message>
        <source>Running-sequences sweep</source>
        <translation>运行序列数扫描</translation>
    </message>
    <message>
        <source>Scheduler sweeps: requests in flight at every step</source>
        <translation>调度器扫描：每一步同时进行的请求数</translation>
    </message>
    <message>
        <source>C&amp;oncurrency</source>
        <translation>并发(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Distinct prompts (numbered: no prefix-cache hits)</source>
        <translation>互不相同的提示(&amp;D)（编号：不命中前缀缓存）</translation>
    </message>
    <message>
        <source>Start each request&apos;s prompt with its own number, so that the server reads every prompt in full instead of serving it from an earlier one&apos;s cache</source>
        <translation>每个请求的提示以其自己的编号开头，使服务器完整读取每个提示，而不是从先前请求的缓存中提供</translation>
    </message>
    <message>
        <source>TPOT-target sweep (ms per output token prompts are paced to; 0: unpaced)</source>
        <translation>TPOT 目标扫描（提示按每个输出令牌的毫秒数限速；0：不限速）</translation>
    </message>
    <message>
        <source>Concurrency</source>
        <translation>并发数</translation>
    </message>
    <message>
        <source>Request rate</source>
        <translation>请求速率</translation>
    </message>
    <message>
        <source>Prompt length</source>
        <translation>提示长度</translation>
    </message>
    <message>
        <source>Prefill chunk</source>
        <translation>预填充分块</translation>
    </message>
    <message>
        <source>Running sequences</source>
        <translation>运行序列数</translation>
    </message>
    <message>
        <source>TPOT target (ms)</source>
        <translation>TPOT 目标（毫秒）</translation>
    </message>
    <message>
        <source>%1: expected a whole number from %2 to %3, found %4</source>
        <translation>%1：应为 %2 到 %3 之间的整数，实际为 %4</translation>
    </message>
    <message>
        <source>Values: expected numbers from 0 up separated by commas, found &apos;%1&apos;</source>
        <translation>取值：应为以逗号分隔的非负数，实际为“%1”</translation>
    </message>
    <message>
        <source>E&amp;xport</source>
        <translation>导出(&amp;X)</translation>
    </message>
    <message>
        <source>Save the last sweep: its figures and settings, its steps or a chart</source>
        <translation>保存最近一次扫描：其数值和设置、各步骤或图表</translation>
    </message>
    <message>
        <source>Results and settings as &amp;JSON…</source>
        <translation>以 &amp;JSON 保存结果和设置…</translation>
    </message>
    <message>
        <source>Steps as &amp;CSV…</source>
        <translation>以 &amp;CSV 保存各步骤…</translation>
    </message>
    <message>
        <source>Per-step chart as &amp;PNG…</source>
        <translation>以 &amp;PNG 保存每步图表…</translation>
    </message>
    <message>
        <source>Per-step chart as &amp;SVG…</source>
        <translation>以 &amp;SVG 保存每步图表…</translation>
    </message>
    <message>
        <source>&amp;Trade-off chart as PNG…</source>
        <translation>以 PNG 保存权衡图(&amp;T)…</translation>
    </message>
    <message>
        <source>T&amp;rade-off chart as SVG…</source>
        <translation>以 SVG 保存权衡图(&amp;R)…</translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <source>Save the chart</source>
        <translation>保存图表</translation>
    </message>
    <message>
        <source>SVG (*.svg)</source>
        <translation>SVG (*.svg)</translation>
    </message>
    <message>
        <source>PNG image (*.png)</source>
        <translation>PNG 图像 (*.png)</translation>
    </message>
    <message>
        <source>p99 latency per step</source>
        <translation>每步的 p99 延迟</translation>
    </message>
    <message>
        <source>TTFT against TPOT</source>
        <translation>TTFT 对 TPOT</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>ts::ui::ChatPanel</name>
    <message>
        <source>Pick a provider, type a message and press Ctrl+Return.</source>
        <translation>选择提供方,输入消息,然后按 Ctrl+Return。</translation>
    </message>
    <message>
        <source>Message (Ctrl+Return to send)</source>
        <translation>消息(Ctrl+Return 发送)</translation>
    </message>
    <message>
        <source>&amp;Send</source>
        <translation>发送(&amp;S)</translation>
    </message>
    <message>
        <source>Send (Ctrl+Return)</source>
        <translation>发送(Ctrl+Return)</translation>
    </message>
    <message>
        <source>Sto&amp;p</source>
        <translation>停止(&amp;P)</translation>
    </message>
    <message>
        <source>Stop generating and keep what arrived (Esc)</source>
        <translation>停止生成并保留已收到的内容(Esc)</translation>
    </message>
    <message>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copy this message as written (Markdown)</source>
        <translation>按原文复制这条消息（Markdown）</translation>
    </message>
    <message>
        <source>Copy code</source>
        <translation>复制代码</translation>
    </message>
    <message>
        <source>Copy this code block</source>
        <translation>复制此代码块</translation>
    </message>
    <message>
        <source>Copied the code block to the clipboard.</source>
        <translation>已将代码块复制到剪贴板。</translation>
    </message>
    <message>
        <source>Copied the message to the clipboard.</source>
        <translation>已将消息复制到剪贴板。</translation>
    </message>
</context>
<context>
    <name>ts::ui::ComparisonView</name>
    <message>
        <source>Compare runs</source>
        <translation>比较运行</translation>
    </message>
    <message>
        <source>TTFT (ms)</source>
        <translation>TTFT（毫秒）</translation>
    </message>
    <message>
        <source>TPOT (ms)</source>
        <translation>TPOT（毫秒）</translation>
    </message>
    <message>
        <source>&amp;Export…</source>
        <translation>导出(&amp;E)…</translation>
    </message>
    <message>
        <source>PNG or SVG of the view; CSV or JSON of the numbers</source>
        <translation>视图导出为 PNG 或 SVG；数值导出为 CSV 或 JSON</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Gap before each chunk (first run of each series)</source>
        <translation>每个内容块之前的间隔（每个系列的第一次运行）</translation>
    </message>
    <message>
        <source>arrival (s since the request)</source>
        <translation>到达时间（距请求开始的秒数）</translation>
    </message>
    <message>
        <source>inter-token latency (ms)</source>
        <translation>词元间延迟（毫秒）</translation>
    </message>
    <message>
        <source>
Box: p50 to p90; whiskers: the minimum and p99.</source>
        <translation>
箱体：p50 到 p90；须线：最小值和 p99。</translation>
    </message>
    <message>
        <source>Decode tok/s</source>
        <translation>解码 tok/s</translation>
    </message>
    <message>
        <source>Overall tok/s</source>
        <translation>总体 tok/s</translation>
    </message>
    <message>
        <source>Prefill (ms)</source>
        <translation>预填充（毫秒）</translation>
    </message>
    <message>
        <source>Acceptance</source>
        <translation>接受率</translation>
    </message>
    <message>
        <source>Runs (completed / failed)</source>
        <translation>运行（完成 / 失败）</translation>
    </message>
    <message>
        <source>Every setting is the same</source>
        <translation>所有设置都相同</translation>
    </message>
    <message>
        <source>Only the settings that differ</source>
        <translation>仅显示不同的设置</translation>
    </message>
    <message>
        <source>cannot write %1 as PNG</source>
        <translation>无法将 %1 写为 PNG</translation>
    </message>
    <message>
        <source>cannot write %1 as SVG</source>
        <translation>无法将 %1 写为 SVG</translation>
    </message>
    <message>
        <source>Export the comparison</source>
        <translation>导出比较</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG image (*.svg);;CSV numbers (*.csv);;JSON numbers (*.json)</source>
        <translation>PNG 图像 (*.png);;SVG 图像 (*.svg);;CSV 数值 (*.csv);;JSON 数值 (*.json)</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Requests in each scheduler step (local runs, first run of each series)</source>
        <translation>每个调度步骤中的请求数（本地运行，每个系列的第一次运行）</translation>
    </message>
    <message>
        <source>batch size</source>
        <translation>批大小</translation>
    </message>
    <message>
        <source>How many requests the local engine&apos;s scheduler ran in the step that produced each token: continuous batching at work</source>
        <translation>本地引擎的调度器在产生每个令牌的那一步中运行了多少个请求：连续批处理的实际效果</translation>
    </message>
    <message>
        <source>&lt;b&gt;Figures&lt;/b&gt;</source>
        <translation>&lt;b&gt;数值&lt;/b&gt;</translation>
    </message>
    <message>
        <source>&lt;b&gt;Every setting is the same&lt;/b&gt;</source>
        <translation>&lt;b&gt;所有设置都相同&lt;/b&gt;</translation>
    </message>
    <message>
        <source>&lt;b&gt;Settings that differ&lt;/b&gt;</source>
        <translation>&lt;b&gt;不同的设置&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Copies the command that measures this lever alone against the model&apos;s baseline, interleaved, 5 repeats each:
%1</source>
        <translation>复制单独测量此杠杆（相对模型基线，交替运行，各重复 5 次）的命令：
%1</translation>
    </message>
    <message>
        <source>Copied: %1</source>
        <translation>已复制：%1</translation>
    </message>
</context>
<context>
    <name>ts::ui::ConfigExport</name>
    <message>
        <source>Export configuration</source>
        <translation>导出配置</translation>
    </message>
    <message>
        <source>TOML (*.toml);;settings.json (*.json)</source>
        <translation>TOML (*.toml);;settings.json (*.json)</translation>
    </message>
    <message>
        <source>TokenScope reads %1 at every start, so the next start would use this configuration&apos;s provider, temperature and max tokens.

Export there anyway?</source>
        <translation>TokenScope 每次启动时都会读取 %1，因此下次启动将使用此配置中的提供方、温度和最大词元数。

仍要导出到该位置吗？</translation>
    </message>
</context>
<context>
    <name>ts::ui::DownloadDialog</name>
    <message>
        <source>Download a model</source>
        <translation>下载模型</translation>
    </message>
    <message>
        <source>Paste a &amp;URL</source>
        <translation>粘贴网址(&amp;U)</translation>
    </message>
    <message>
        <source>or &amp;repository</source>
        <translation>或填写仓库(&amp;R)</translation>
    </message>
    <message>
        <source>and &amp;file</source>
        <translation>以及文件(&amp;F)</translation>
    </message>
    <message>
        <source>Suggestions:</source>
        <translation>推荐：</translation>
    </message>
    <message>
        <source>&amp;Download</source>
        <translation>下载(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation>暂停(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Cancel</source>
        <translation>取消(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Use this model</source>
        <translation>使用此模型(&amp;U)</translation>
    </message>
    <message>
        <source>Resuming…</source>
        <translation>正在继续…</translation>
    </message>
    <message>
        <source>Asking the hub for %1…</source>
        <translation>正在向模型中心查询 %1…</translation>
    </message>
    <message>
        <source>%1 of %2 MB · %3 · %4 left</source>
        <translation>%1 / %2 MB · %3 · 剩余 %4</translation>
    </message>
    <message>
        <source>&amp;Resume</source>
        <translation>继续(&amp;R)</translation>
    </message>
    <message>
        <source>Paused; the partial file is kept. Resume continues where it stopped.</source>
        <translation>已暂停；已下载的部分会保留。继续时会从中断处接着下载。</translation>
    </message>
    <message>
        <source>Verifying the size and sha256…</source>
        <translation>正在核对大小和 sha256…</translation>
    </message>
    <message>
        <source>Saved %1 (%2).</source>
        <translation>已保存 %1（%2）。</translation>
    </message>
    <message>
        <source>TinyStories 15M (GGUF, Q4_0, ~10 MB)</source>
        <translation>TinyStories 15M（GGUF，Q4_0，约 10 MB）</translation>
    </message>
    <message>
        <source>TinyStories 110M (llama2.c, ~440 MB; needs tokenizer.bin beside it)</source>
        <translation>TinyStories 110M（llama2.c，约 440 MB；需要同目录下的 tokenizer.bin）</translation>
    </message>
    <message>
        <source>Baichuan2-7B-Chat (GGUF, Q4_0, ~4.4 GB)</source>
        <translation>Baichuan2-7B-Chat（GGUF，Q4_0，约 4.4 GB）</translation>
    </message>
    <message>
        <source>Baichuan2-7B-Chat from Baichuan (PyTorch .bin, bf16, ~15 GB, whole repository)</source>
        <translation>百川官方 Baichuan2-7B-Chat（PyTorch .bin，bf16，约 15 GB，整个仓库）</translation>
    </message>
    <message>
        <source>Baichuan2-13B-Chat from Baichuan (PyTorch .bin, 3 shards, ~28 GB)</source>
        <translation>百川官方 Baichuan2-13B-Chat（PyTorch .bin，3 个分片，约 28 GB）</translation>
    </message>
    <message>
        <source>Baichuan2-7B-Base from Baichuan (PyTorch .bin, 2 shards, ~15 GB)</source>
        <translation>百川官方 Baichuan2-7B-Base（PyTorch .bin，2 个分片，约 15 GB）</translation>
    </message>
    <message>
        <source>model.Q4_0.gguf — empty: the whole repository</source>
        <translation>model.Q4_0.gguf — 留空：下载整个仓库</translation>
    </message>
    <message>
        <source>File %1 of %2: %3</source>
        <translation>第 %1 / %2 个文件：%3</translation>
    </message>
    <message>
        <source>File %1: %2</source>
        <translation>第 %1 个文件：%2</translation>
    </message>
    <message>
        <source> — press Download again to try again; what arrived is kept.</source>
        <translation> — 再次点击“下载”即可重试；已下载的部分会保留。</translation>
    </message>
</context>
<context>
    <name>ts::ui::HistoryDialog</name>
    <message>
        <source>Run history</source>
        <translation>运行历史</translation>
    </message>
    <message>
        <source>Tag</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>Search in prompts (Ctrl+F)</source>
        <translation>在提示中搜索 (Ctrl+F)</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>提供方</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>TTFT ms</source>
        <translation>TTFT 毫秒</translation>
    </message>
    <message>
        <source>TPOT ms</source>
        <translation>TPOT 毫秒</translation>
    </message>
    <message>
        <source>Decode tok/s</source>
        <translation>解码 tok/s</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>词元数</translation>
    </message>
    <message>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>Time to first token: the first non-empty content chunk − the request start</source>
        <translation>首词元时间：第一个非空内容块 − 请求开始</translation>
    </message>
    <message>
        <source>Time per output token: (E2E − TTFT) / (output tokens − 1)</source>
        <translation>每个输出词元的时间：(E2E − TTFT) / (输出词元数 − 1)</translation>
    </message>
    <message>
        <source>Comma-separated; double-click to edit</source>
        <translation>以逗号分隔；双击编辑</translation>
    </message>
    <message>
        <source>Double-click to edit</source>
        <translation>双击编辑</translation>
    </message>
    <message>
        <source>Run &amp;again</source>
        <translation>再次运行(&amp;A)</translation>
    </message>
    <message>
        <source>Send the same messages with the same provider and parameters</source>
        <translation>用相同的提供方和参数发送相同的消息</translation>
    </message>
    <message>
        <source>&amp;Delete</source>
        <translation>删除(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Import run logs…</source>
        <translation>导入运行日志(&amp;I)…</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Select one run to run again.</source>
        <translation>请选择一次运行来再次运行。</translation>
    </message>
    <message>
        <source>Import run logs</source>
        <translation>导入运行日志</translation>
    </message>
    <message>
        <source>Run logs (*.jsonl);;All files (*)</source>
        <translation>运行日志 (*.jsonl);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Any</source>
        <translation>任意</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s)</source>
        <translation>
            <numerusform>%n 次运行</numerusform>
        </translation>
    </message>
    <message>
        <source>Select the runs to delete.</source>
        <translation>请选择要删除的运行。</translation>
    </message>
    <message>
        <source>Delete runs</source>
        <translation>删除运行</translation>
    </message>
    <message numerus="yes">
        <source>Delete %n run(s) and their recorded events? This cannot be undone.</source>
        <translation>
            <numerusform>删除 %n 次运行及其记录的事件？此操作无法撤销。</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Compare</source>
        <translation>比较(&amp;C)</translation>
    </message>
    <message>
        <source>Side by side: select 2 to 4 runs (Ctrl+Shift+C)</source>
        <translation>并排比较：选择 2 到 4 次运行 (Ctrl+Shift+C)</translation>
    </message>
    <message>
        <source>as &amp;groups</source>
        <translation>按组(&amp;G)</translation>
    </message>
    <message>
        <source>Compare each selected run&apos;s whole benchmark group (its repeated runs) rather than the single run</source>
        <translation>比较每个所选运行所在的整个基准测试组（其重复运行），而不是单次运行</translation>
    </message>
    <message>
        <source>Select 2 to 4 runs to compare (Ctrl+click).</source>
        <translation>请选择 2 到 4 次运行进行比较（Ctrl+单击）。</translation>
    </message>
    <message>
        <source>At most 4 series fit side by side.</source>
        <translation>最多只能并排比较 4 个系列。</translation>
    </message>
    <message>
        <source>Any time</source>
        <translation>任意时间</translation>
    </message>
    <message>
        <source>Last hour</source>
        <translation>最近一小时</translation>
    </message>
    <message>
        <source>Last 24 hours</source>
        <translation>最近 24 小时</translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation>最近 7 天</translation>
    </message>
    <message>
        <source>Last 30 days</source>
        <translation>最近 30 天</translation>
    </message>
    <message>
        <source>Benchmark</source>
        <translation>基准测试</translation>
    </message>
    <message>
        <source>The benchmark step a run belongs to: the swept setting and its value</source>
        <translation>运行所属的基准测试步骤：扫描的设置及其取值</translation>
    </message>
    <message>
        <source>No earlier run to compare this one with: select 2 to 4 runs (Ctrl+click).</source>
        <translation>没有更早的运行可与此运行比较：请选择 2 到 4 次运行（Ctrl+单击）。</translation>
    </message>
</context>
<context>
    <name>ts::ui::LabErrorChart</name>
    <message>
        <source>lab run</source>
        <translation>实验运行</translation>
    </message>
    <message>
        <source>error %</source>
        <translation>误差 %</translation>
    </message>
    <message>
        <source>How far the cost model&apos;s prediction of decode tok/s was from the measurement in each past lab run of this lever: (1 + predicted) / (1 + measured) − 1. Near 0: the model of this machine is calibrated.</source>
        <translation>在此杠杆以往每次实验中，成本模型对解码 tok/s 的预测与测量值的偏差：(1 + 预测) / (1 + 测量) − 1。接近 0 表示本机的模型已校准。</translation>
    </message>
    <message>
        <source>Prediction error of decode tok/s over past runs</source>
        <translation>以往运行中解码 tok/s 的预测误差</translation>
    </message>
    <message>
        <source>Prediction error of decode tok/s over past runs of %1</source>
        <translation>%1 以往运行中解码 tok/s 的预测误差</translation>
    </message>
    <message>
        <source>%1: none yet</source>
        <translation>%1：暂无</translation>
    </message>
</context>
<context>
    <name>ts::ui::LatencyChart</name>
    <message>
        <source>Gap before each chunk</source>
        <translation>每个块之前的间隔</translation>
    </message>
    <message>
        <source>inter-token latency (ms)</source>
        <translation>token 间延迟(毫秒)</translation>
    </message>
    <message>
        <source>time since request (s)</source>
        <translation>自请求开始的时间(秒)</translation>
    </message>
    <message>
        <source>gap (ms)</source>
        <translation>间隔(毫秒)</translation>
    </message>
    <message>
        <source>TTFT %1 ms</source>
        <translation>TTFT %1 毫秒</translation>
    </message>
</context>
<context>
    <name>ts::ui::LeverLabDialog</name>
    <message>
        <source>Whole prompts in one step</source>
        <translation>整个提示词在一步中计算</translation>
    </message>
    <message>
        <source>%1 prompt tokens per step (the default is 256)</source>
        <translation>每步 %1 个提示词 token（默认 256）</translation>
    </message>
    <message>
        <source>Prompts over %1 tokens computed by a prefill worker with its own threads, then handed to the decoding batch</source>
        <translation>超过 %1 个 token 的提示词由拥有独立线程的预填充工作线程计算，然后交给解码批次</translation>
    </message>
    <message>
        <source>Prompt chunks paced to keep decoding near %1 ms per token</source>
        <translation>调节提示词分块节奏，使解码保持在每 token 约 %1 毫秒</translation>
    </message>
    <message>
        <source>Lever lab</source>
        <translation>杠杆实验</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <source>Speculative sampling</source>
        <translation>推测采样</translation>
    </message>
    <message>
        <source>Threads</source>
        <translation>线程</translation>
    </message>
    <message>
        <source>Prefill policy (mixed load)</source>
        <translation>预填充策略（混合负载）</translation>
    </message>
    <message>
        <source>&amp;Lever:</source>
        <translation>杠杆(&amp;L)：</translation>
    </message>
    <message>
        <source>K:</source>
        <translation>K：</translation>
    </message>
    <message>
        <source>&amp;Repeat:</source>
        <translation>重复(&amp;R)：</translation>
    </message>
    <message>
        <source>Measured runs of the baseline and of each variant, interleaved A B A B …</source>
        <translation>基线和每个变体的测量运行次数，交替进行 A B A B …</translation>
    </message>
    <message>
        <source>&amp;Prompt tokens:</source>
        <translation>提示词 token(&amp;P)：</translation>
    </message>
    <message>
        <source>The prompt every run sends (the same tokens for every arm)</source>
        <translation>每次运行发送的提示词（每个分组使用相同的 token）</translation>
    </message>
    <message>
        <source>&amp;Generated tokens:</source>
        <translation>生成 token(&amp;G)：</translation>
    </message>
    <message>
        <source>Tokens each run generates (end of sequence ignored)</source>
        <translation>每次运行生成的 token 数（忽略序列结束符）</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Run the baseline and the variants interleaved (Ctrl+Return)</source>
        <translation>交替运行基线和各变体（Ctrl+Return）</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>取值</translation>
    </message>
    <message>
        <source>Metric</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Baseline</source>
        <translation>基线</translation>
    </message>
    <message>
        <source>Variant</source>
        <translation>变体</translation>
    </message>
    <message>
        <source>Change [95 % interval]</source>
        <translation>变化 [95 % 区间]</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>预测</translation>
    </message>
    <message>
        <source>Prediction error</source>
        <translation>预测误差</translation>
    </message>
    <message>
        <source>Run the la&amp;dder</source>
        <translation>运行阶梯(&amp;D)</translation>
    </message>
    <message>
        <source>Baseline → weights (q8_0, q4_k, q4_0) → + KV int8 → + speculative (self-int4), each step keeping its best value only when it improved measurably within the accuracy limit; writes a Markdown report with charts and its JSON</source>
        <translation>基线 → 权重（q8_0、q4_k、q4_0）→ + KV int8 → + 推测采样（self-int4），每一步仅在可测地改进且不超出准确度限制时保留最佳取值；写出带图表的 Markdown 报告及其 JSON</translation>
    </message>
    <message>
        <source>The ladder&apos;s accuracy limit: the top-1 agreement a step must keep</source>
        <translation>阶梯的准确度限制：每一步必须保持的 top-1 一致率</translation>
    </message>
    <message>
        <source>top-1 ≥</source>
        <translation>top-1 ≥</translation>
    </message>
    <message>
        <source>&amp;Copy report</source>
        <translation>复制报告(&amp;C)</translation>
    </message>
    <message>
        <source>The report as Markdown, to the clipboard</source>
        <translation>将报告以 Markdown 复制到剪贴板</translation>
    </message>
    <message>
        <source>&amp;Export JSON…</source>
        <translation>导出 JSON(&amp;E)…</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>The baseline&apos;s own setting</source>
        <translation>基线自身的设置</translation>
    </message>
    <message>
        <source>Baseline: %1 · weights %2 · KV %3 · %4</source>
        <translation>基线：%1 · 权重 %2 · KV %3 · %4</translation>
    </message>
    <message>
        <source>Check at least one value to try (and a K for speculative sampling)</source>
        <translation>请至少勾选一个要尝试的取值（推测采样还需勾选一个 K）</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在开始…</translation>
    </message>
    <message>
        <source>Done.</source>
        <translation>完成。</translation>
    </message>
    <message>
        <source>Cancelled: nothing was stored.</source>
        <translation>已取消：未保存任何内容。</translation>
    </message>
    <message>
        <source>Export the lab report</source>
        <translation>导出实验报告</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
</context>
<context>
    <name>ts::ui::MainWindow</name>
    <message>
        <source>TokenScope</source>
        <translation>TokenScope</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;New chat</source>
        <translation>新对话(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Import configuration…</source>
        <translation>导入配置(&amp;I)…</translation>
    </message>
    <message>
        <source>Import configuration</source>
        <translation>导入配置</translation>
    </message>
    <message>
        <source>Configuration (*.json *.toml);;All files (*)</source>
        <translation>配置文件 (*.json *.toml);;所有文件 (*)</translation>
    </message>
    <message>
        <source>&amp;Export configuration…</source>
        <translation>导出配置(&amp;E)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Provider</source>
        <translation>提供方(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Manage providers…</source>
        <translation>管理提供方(&amp;M)…</translation>
    </message>
    <message>
        <source>&amp;Add…</source>
        <translation>添加(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Edit…</source>
        <translation>编辑(&amp;E)…</translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation>移除(&amp;R)</translation>
    </message>
    <message>
        <source>API &amp;key…</source>
        <translation>API 密钥(&amp;K)…</translation>
    </message>
    <message>
        <source>Connection &amp;doctor…</source>
        <translation>连接诊断(&amp;D)…</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Focus &amp;parameters</source>
        <translation>聚焦参数(&amp;P)</translation>
    </message>
    <message>
        <source>Focus &amp;message</source>
        <translation>聚焦消息框(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Effective configuration…</source>
        <translation>生效配置(&amp;E)…</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>System default</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>Note: </source>
        <translation>提示:</translation>
    </message>
    <message>
        <source>Do&amp;wnload a model…</source>
        <translation>下载模型(&amp;W)…</translation>
    </message>
    <message>
        <source>&amp;Serve the local model (OpenAI-compatible)</source>
        <translation>以 OpenAI 兼容接口提供本地模型(&amp;S)</translation>
    </message>
    <message>
        <source>Open a &amp;local model…</source>
        <translation>打开本地模型(&amp;L)…</translation>
    </message>
    <message>
        <source>Mark accepted &amp;draft tokens</source>
        <translation>标记被接受的草稿词元(&amp;D)</translation>
    </message>
    <message>
        <source>Speculative runs: tokens the draft proposed and the target accepted are shown on green; the rest the target produced itself</source>
        <translation>推测采样：草稿模型提出且被目标模型接受的词元以绿色底显示；其余词元由目标模型自己生成</translation>
    </message>
    <message>
        <source>Run &amp;history…</source>
        <translation>运行历史(&amp;H)…</translation>
    </message>
    <message>
        <source>&amp;Benchmark…</source>
        <translation>基准测试(&amp;B)…</translation>
    </message>
    <message>
        <source>&amp;Export chat…</source>
        <translation>导出对话(&amp;E)…</translation>
    </message>
    <message>
        <source>Export the chat</source>
        <translation>导出对话</translation>
    </message>
    <message>
        <source>Markdown (*.md);;JSON (*.json)</source>
        <translation>Markdown (*.md);;JSON (*.json)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About TokenScope</source>
        <translation>关于 TokenScope(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Compare the last two runs</source>
        <translation>比较最近两次运行(&amp;C)</translation>
    </message>
    <message>
        <source>Re&amp;nder answers as Markdown</source>
        <translation>以 Markdown 渲染回答(&amp;N)</translation>
    </message>
    <message>
        <source>Off: answers are shown as plain text, exactly as they streamed</source>
        <translation>关闭：回答按流式到达时的原样以纯文本显示</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>Follow the &amp;system</source>
        <translation>跟随系统(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>浅色(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>深色(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>Send the message</source>
        <translation>发送消息</translation>
    </message>
    <message>
        <source>Stop generating (the partial answer is kept)</source>
        <translation>停止生成（保留已收到的部分回答）</translation>
    </message>
    <message>
        <source>Refresh the model list</source>
        <translation>刷新模型列表</translation>
    </message>
    <message>
        <source> or </source>
        <translation> 或 </translation>
    </message>
    <message>
        <source>Serve se&amp;ttings…</source>
        <translation>服务设置(&amp;T)…</translation>
    </message>
    <message>
        <source>%1 — starting…</source>
        <translation>%1 — 正在启动…</translation>
    </message>
    <message>
        <source>%1 — stopping…</source>
        <translation>%1 — 正在停止…</translation>
    </message>
    <message>
        <source>Nothing here can send a run again.</source>
        <translation>此处无法再次发送运行。</translation>
    </message>
    <message>
        <source>Tr&amp;y a lever…</source>
        <translation>尝试一个杠杆(&amp;Y)…</translation>
    </message>
    <message>
        <source>&amp;Tools</source>
        <translation>工具(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Lever lab…</source>
        <translation>杠杆实验(&amp;L)…</translation>
    </message>
    <message>
        <source>Pull one lever of the local engine (weights, KV cache, speculative sampling, threads, prefill policy) against its baseline, measured with confidence intervals</source>
        <translation>相对基线调节本地引擎的一个杠杆（权重、KV 缓存、推测采样、线程、预填充策略），并以置信区间测量</translation>
    </message>
</context>
<context>
    <name>ts::ui::MetricsStrip</name>
    <message>
        <source>Time to first token: first chunk with non-empty content − request start.</source>
        <translation>首 token 时间:第一个内容非空的块 − 请求开始。</translation>
    </message>
    <message>
        <source>Time per output token: (E2E − TTFT) / (output tokens − 1); only for more than one output token.</source>
        <translation>每个输出 token 的时间:(E2E − TTFT) / (输出 token 数 − 1);仅在输出多于一个 token 时计算。</translation>
    </message>
    <message>
        <source>Decode</source>
        <translation>解码</translation>
    </message>
    <message>
        <source>Decode rate: (output tokens − 1) / (E2E − TTFT) = 1 / TPOT.</source>
        <translation>解码速率:(输出 token 数 − 1) / (E2E − TTFT) = 1 / TPOT。</translation>
    </message>
    <message>
        <source>Overall</source>
        <translation>总体</translation>
    </message>
    <message>
        <source>Overall rate: output tokens / E2E (includes the wait for the first token).</source>
        <translation>总体速率:输出 token 数 / E2E(包含等待首 token 的时间)。</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>Output tokens: usage.completion_tokens when the server sends it; else the local tokenizer&apos;s count; else the number of chunks.</source>
        <translation>输出 token 数:服务器发送时取 usage.completion_tokens;否则取本地分词器的计数;否则取块的数量。</translation>
    </message>
    <message>
        <source>End to end: last content chunk − request start (a trailing usage chunk does not extend it).</source>
        <translation>端到端:最后一个内容块 − 请求开始(末尾的 usage 块不计入)。</translation>
    </message>
    <message>
        <source>ITL p50 / p99</source>
        <translation>ITL p50 / p99</translation>
    </message>
    <message>
        <source>Inter-token latency: gaps between consecutive content chunks (per chunk).</source>
        <translation>token 间延迟:相邻内容块之间的间隔(按块计)。</translation>
    </message>
    <message>
        <source>usage</source>
        <translation>usage</translation>
    </message>
    <message>
        <source>tokenizer</source>
        <translation>分词器</translation>
    </message>
    <message>
        <source>chunks</source>
        <translation>块数</translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>Prompt tokens (usage.prompt_tokens) and, for the local engine, the time of the prompt pass (prefill), which TTFT includes.</source>
        <translation>提示词元数（usage.prompt_tokens），本地引擎还显示处理提示所用的时间（预填充），它包含在 TTFT 之内。</translation>
    </message>
    <message>
        <source>%1 tok</source>
        <translation>%1 词元</translation>
    </message>
    <message>
        <source>prefill %1</source>
        <translation>预填充 %1</translation>
    </message>
    <message>
        <source>Acceptance</source>
        <translation>接受率</translation>
    </message>
    <message>
        <source>Speculative runs: accepted draft tokens / drafted tokens, then the steps by number of accepted drafts (n:steps).</source>
        <translation>推测采样运行：被接受的草稿词元数 / 草稿词元数，随后是按接受草稿数统计的步数（n:步数）。</translation>
    </message>
    <message>
        <source>%1 cached</source>
        <translation>%1 已缓存</translation>
    </message>
</context>
<context>
    <name>ts::ui::ModelManagerDialog</name>
    <message>
        <source>Open a local model</source>
        <translation>打开本地模型</translation>
    </message>
    <message>
        <source>Recent models:</source>
        <translation>最近的模型：</translation>
    </message>
    <message>
        <source>Open &amp;file…</source>
        <translation>打开文件(&amp;F)…</translation>
    </message>
    <message>
        <source>Open f&amp;older…</source>
        <translation>打开文件夹(&amp;O)…</translation>
    </message>
    <message>
        <source>Choose a model to see what it is.</source>
        <translation>选择一个模型以查看其信息。</translation>
    </message>
    <message>
        <source>&amp;Backend</source>
        <translation>后端(&amp;B)</translation>
    </message>
    <message>
        <source>CPU threads for the matrix products (one per core is usually best)</source>
        <translation>矩阵乘法使用的 CPU 线程数（通常每个核心一个最好）</translation>
    </message>
    <message>
        <source>CPU &amp;threads</source>
        <translation>CPU 线程(&amp;T)</translation>
    </message>
    <message>
        <source>f32 (exact)</source>
        <translation>f32（精确）</translation>
    </message>
    <message>
        <source>f16 (half the memory)</source>
        <translation>f16（内存减半）</translation>
    </message>
    <message>
        <source>int8, per output channel</source>
        <translation>int8，按输出通道</translation>
    </message>
    <message>
        <source>int4, groups of 128</source>
        <translation>int4，每组 128</translation>
    </message>
    <message>
        <source>q8_0, blocks of 32</source>
        <translation>q8_0，每块 32</translation>
    </message>
    <message>
        <source>&amp;Weights</source>
        <translation>权重(&amp;W)</translation>
    </message>
    <message>
        <source>f32</source>
        <translation>f32</translation>
    </message>
    <message>
        <source>f16</source>
        <translation>f16</translation>
    </message>
    <message>
        <source>int8 (one scale per row)</source>
        <translation>int8（每行一个缩放因子）</translation>
    </message>
    <message>
        <source>&amp;KV cache</source>
        <translation>KV 缓存(&amp;K)</translation>
    </message>
    <message>
        <source> positions</source>
        <translation> 个位置</translation>
    </message>
    <message>
        <source>Prompt + answer tokens the KV cache holds (at most the model&apos;s trained context)</source>
        <translation>KV 缓存可容纳的提示与回答词元数（不超过模型训练时的上下文长度）</translation>
    </message>
    <message>
        <source>&amp;Context</source>
        <translation>上下文(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Load</source>
        <translation>加载(&amp;L)</translation>
    </message>
    <message>
        <source>Cancel loading</source>
        <translation>取消加载</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>This is not a model TokenScope can open: %1</source>
        <translation>TokenScope 无法打开此模型：%1</translation>
    </message>
    <message>
        <source>Loading cancelled; nothing was changed.</source>
        <translation>已取消加载；没有做任何更改。</translation>
    </message>
    <message>
        <source>Open a model file</source>
        <translation>打开模型文件</translation>
    </message>
    <message>
        <source>Models (*.gguf *.bin *.safetensors);;All files (*)</source>
        <translation>模型 (*.gguf *.bin *.safetensors);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Open a Hugging Face model folder (config.json, *.safetensors)</source>
        <translation>打开 Hugging Face 模型文件夹（config.json、*.safetensors）</translation>
    </message>
    <message>
        <source>auto: as the file stores them</source>
        <translation>auto：按文件存储的格式</translation>
    </message>
    <message>
        <source>auto keeps every tensor as the file stores it, read straight from the file. Other formats are converted once at load and kept in the cache (~/.cache/tokenscope), so the next load of the same format is fast.</source>
        <translation>auto 让每个张量保持文件中的存储格式，直接从文件读取。其他格式在加载时转换一次并保存在缓存中（~/.cache/tokenscope），因此下次以相同格式加载会很快。</translation>
    </message>
    <message>
        <source>Clear c&amp;ache</source>
        <translation>清除缓存(&amp;A)</translation>
    </message>
    <message>
        <source>Removes every converted model from the cache; the models themselves stay.</source>
        <translation>从缓存中移除所有转换后的模型；模型文件本身保留。</translation>
    </message>
    <message>
        <source>A .gguf file, a Hugging Face folder (safetensors or PyTorch .bin) or a llama2.c .bin</source>
        <translation>.gguf 文件、Hugging Face 文件夹（safetensors 或 PyTorch .bin）或 llama2.c 的 .bin</translation>
    </message>
</context>
<context>
    <name>ts::ui::ParameterPanel</name>
    <message>
        <source>&amp;Temperature</source>
        <translation>温度(&amp;T)</translation>
    </message>
    <message>
        <source>0 = always the most likely token; higher = more varied (0–2).</source>
        <translation>0 = 总是选择最可能的 token;越高越多样(0–2)。</translation>
    </message>
    <message>
        <source>Top &amp;p</source>
        <translation>Top &amp;p</translation>
    </message>
    <message>
        <source>Sample only from the smallest set of tokens whose probability sums to p.</source>
        <translation>只从概率之和达到 p 的最小 token 集合中采样。</translation>
    </message>
    <message>
        <source>&amp;Max tokens</source>
        <translation>最大 token 数(&amp;M)</translation>
    </message>
    <message>
        <source>Stream tokens as they are generated</source>
        <translation>边生成边流式输出 token</translation>
    </message>
    <message>
        <source>Off: one complete response; TTFT then equals E2E.</source>
        <translation>关闭:一次返回完整响应;此时 TTFT 等于 E2E。</translation>
    </message>
    <message>
        <source>Optional system message</source>
        <translation>可选的系统消息</translation>
    </message>
    <message>
        <source>S&amp;ystem</source>
        <translation>系统消息(&amp;Y)</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Self, int4 weights</source>
        <translation>自身，int4 权重</translation>
    </message>
    <message>
        <source>Self, first 2 layers</source>
        <translation>自身，前 2 层</translation>
    </message>
    <message>
        <source>Prompt lookup</source>
        <translation>提示查找</translation>
    </message>
    <message>
        <source>Draft model…</source>
        <translation>草稿模型…</translation>
    </message>
    <message>
        <source>Speculative sampling (local engine): a draft proposes K tokens, the model checks them in one pass. The output follows the model&apos;s own distribution; at temperature 0 it is token for token plain greedy decoding.</source>
        <translation>推测采样（本地引擎）：草稿提出 K 个词元，模型在一次前向计算中验证它们。输出遵循模型自身的分布；温度为 0 时与普通贪心解码逐词元相同。</translation>
    </message>
    <message>
        <source>auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>K grows while every draft is accepted and shrinks when few are.</source>
        <translation>草稿全部被接受时 K 增大，被接受的很少时 K 减小。</translation>
    </message>
    <message>
        <source>Spec&amp;ulative</source>
        <translation>推测采样(&amp;U)</translation>
    </message>
    <message>
        <source>draft model file (same vocabulary)</source>
        <translation>草稿模型文件（词表相同）</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Sample only from the k most likely tokens (0: off). Remote providers get it as the top_k extension, which vLLM, SGLang, TGI and llama.cpp accept.</source>
        <translation>只从概率最高的 k 个词元中采样（0：关闭）。远程提供方会收到扩展字段 top_k，vLLM、SGLang、TGI 和 llama.cpp 都支持它。</translation>
    </message>
    <message>
        <source>Above 1 makes tokens already in the prompt or answer less likely (1: off). Remote providers get it as the repetition_penalty extension.</source>
        <translation>大于 1 时，已在提示或回答中出现的词元更不容易再出现（1：关闭）。远程提供方会收到扩展字段 repetition_penalty。</translation>
    </message>
    <message>
        <source>&amp;Repetition penalty</source>
        <translation>重复惩罚(&amp;R)</translation>
    </message>
    <message>
        <source>Top &amp;k</source>
        <translation>Top &amp;k</translation>
    </message>
    <message>
        <source>Use the model&apos;s defaults</source>
        <translation>使用模型的默认值</translation>
    </message>
    <message>
        <source>Set the values the model&apos;s authors suggest (generation_config.json).</source>
        <translation>设为模型作者建议的取值（generation_config.json）。</translation>
    </message>
    <message>
        <source>temperature %1</source>
        <translation>温度 %1</translation>
    </message>
    <message>
        <source>top-k %1</source>
        <translation>top-k %1</translation>
    </message>
    <message>
        <source>top-p %1</source>
        <translation>top-p %1</translation>
    </message>
    <message>
        <source>repetition penalty %1</source>
        <translation>重复惩罚 %1</translation>
    </message>
    <message>
        <source>max tokens %1</source>
        <translation>最大 token 数 %1</translation>
    </message>
    <message>
        <source>The model suggests %1.</source>
        <translation>模型建议：%1。</translation>
    </message>
    <message>
        <source>The model&apos;s defaults are in use</source>
        <translation>已在使用模型的默认值</translation>
    </message>
</context>
<context>
    <name>ts::ui::ProviderBar</name>
    <message>
        <source>Provider</source>
        <translation>提供方</translation>
    </message>
    <message>
        <source> Provider </source>
        <translation> 提供方 </translation>
    </message>
    <message>
        <source>Add…</source>
        <translation>添加…</translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation>编辑…</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>API key…</source>
        <translation>API 密钥…</translation>
    </message>
    <message>
        <source>Doctor…</source>
        <translation>诊断…</translation>
    </message>
    <message>
        <source>Check this provider step by step (Ctrl+D)</source>
        <translation>逐步检查此提供方(Ctrl+D)</translation>
    </message>
    <message>
        <source> Model </source>
        <translation> 模型 </translation>
    </message>
    <message>
        <source>Model id: pick one the endpoint lists, or type any id</source>
        <translation>模型 ID:选择端点列出的一个,或输入任意 ID</translation>
    </message>
    <message>
        <source>Refresh the model list from GET /v1/models (F5)</source>
        <translation>通过 GET /v1/models 刷新模型列表(F5)</translation>
    </message>
    <message>
        <source>Add a provider first (Provider → Add…).</source>
        <translation>请先添加提供方(提供方 → 添加…)。</translation>
    </message>
    <message>
        <source>No provider to edit: add one first.</source>
        <translation>没有可编辑的提供方:请先添加一个。</translation>
    </message>
    <message>
        <source>New provider</source>
        <translation>新提供方</translation>
    </message>
    <message>
        <source>A provider named &apos;%1&apos; already exists; choose another name.</source>
        <translation>名为 &apos;%1&apos; 的提供方已存在;请换一个名字。</translation>
    </message>
</context>
<context>
    <name>ts::ui::ProviderDialog</name>
    <message>
        <source>Provider</source>
        <translation>提供方</translation>
    </message>
    <message>
        <source>&amp;Name</source>
        <translation>名称(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Base URL</source>
        <translation>基础 URL(&amp;B)</translation>
    </message>
    <message>
        <source>Default &amp;model</source>
        <translation>默认模型(&amp;M)</translation>
    </message>
    <message>
        <source>The name of the environment variable that holds the API key. The key itself is never stored by TokenScope.</source>
        <translation>保存 API 密钥的环境变量名。TokenScope 绝不保存密钥本身。</translation>
    </message>
    <message>
        <source>API key &amp;variable</source>
        <translation>API 密钥变量(&amp;V)</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>Longest wait for the connection, the first token, and between chunks.</source>
        <translation>等待连接、首 token 以及块与块之间的最长时间。</translation>
    </message>
    <message>
        <source>&amp;Timeout</source>
        <translation>超时(&amp;T)</translation>
    </message>
    <message>
        <source>Retries before the first token only; a stream is never replayed.</source>
        <translation>仅在首 token 之前重试;已开始的流绝不重放。</translation>
    </message>
    <message>
        <source>Max &amp;retries</source>
        <translation>最大重试次数(&amp;R)</translation>
    </message>
    <message>
        <source>Requests go to </source>
        <translation>请求将发送到 </translation>
    </message>
    <message>
        <source>No key will be sent (fine for local servers).</source>
        <translation>不会发送密钥(适用于本地服务器)。</translation>
    </message>
    <message>
        <source>%1 is not set in this environment: run `export %1=&lt;key&gt;` before starting TokenScope.</source>
        <translation>当前环境中未设置 %1:请在启动 TokenScope 之前运行 `export %1=&lt;key&gt;`。</translation>
    </message>
    <message>
        <source>%1 is set.</source>
        <translation>%1 已设置。</translation>
    </message>
    <message>
        <source>OpenAI-compatible endpoint</source>
        <translation>OpenAI 兼容端点</translation>
    </message>
    <message>
        <source>&amp;Kind</source>
        <translation>类型(&amp;K)</translation>
    </message>
    <message>
        <source>Local engine (a model file on this machine)</source>
        <translation>本地引擎（本机上的模型文件）</translation>
    </message>
    <message>
        <source>Model &amp;file</source>
        <translation>模型文件(&amp;F)</translation>
    </message>
    <message>
        <source>/path/to/model.gguf or a Hugging Face folder</source>
        <translation>/path/to/model.gguf 或 Hugging Face 文件夹</translation>
    </message>
    <message>
        <source>Runs %1 in-process (loaded at the first message).</source>
        <translation>在本进程内运行 %1（发送第一条消息时加载）。</translation>
    </message>
    <message>
        <source>Give a GGUF file, a Hugging Face folder or a llama2.c checkpoint that exists on this machine.</source>
        <translation>请填写本机上存在的 GGUF 文件、Hugging Face 文件夹或 llama2.c 检查点。</translation>
    </message>
    <message>
        <source>No key: the model runs on this machine.</source>
        <translation>无需密钥：模型在本机运行。</translation>
    </message>
</context>
<context>
    <name>ts::ui::ProvidersDialog</name>
    <message>
        <source>Providers</source>
        <translation>提供方</translation>
    </message>
    <message>
        <source>&amp;Add</source>
        <translation>添加(&amp;A)</translation>
    </message>
    <message>
        <source>Blank OpenAI-compatible endpoint</source>
        <translation>空白的 OpenAI 兼容端点</translation>
    </message>
    <message>
        <source>New provider</source>
        <translation>新提供方</translation>
    </message>
    <message>
        <source>Preset: </source>
        <translation>预设:</translation>
    </message>
    <message>
        <source>&amp;Edit…</source>
        <translation>编辑(&amp;E)…</translation>
    </message>
    <message>
        <source>Re&amp;name…</source>
        <translation>重命名(&amp;N)…</translation>
    </message>
    <message>
        <source>Rename provider</source>
        <translation>重命名提供方</translation>
    </message>
    <message>
        <source>New name:</source>
        <translation>新名称:</translation>
    </message>
    <message>
        <source>&amp;Delete</source>
        <translation>删除(&amp;D)</translation>
    </message>
    <message>
        <source>Move &amp;up</source>
        <translation>上移(&amp;U)</translation>
    </message>
    <message>
        <source>Move do&amp;wn</source>
        <translation>下移(&amp;W)</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>提供方</translation>
    </message>
    <message>
        <source>Another provider already has that name.</source>
        <translation>已有其他提供方使用此名称。</translation>
    </message>
    <message>
        <source> copy</source>
        <translation> 副本</translation>
    </message>
    <message>
        <source>A provider needs a name.</source>
        <translation>提供方需要一个名称。</translation>
    </message>
    <message>
        <source>A provider named &apos;%1&apos; already exists.</source>
        <translation>名为 &apos;%1&apos; 的提供方已存在。</translation>
    </message>
    <message>
        <source>D&amp;uplicate</source>
        <translation>复制(&amp;U)</translation>
    </message>
</context>
<context>
    <name>ts::ui::RunDisplay</name>
    <message>
        <source>Failed: </source>
        <translation>失败:</translation>
    </message>
    <message>
        <source>Stopped — the partial answer is kept.</source>
        <translation>已停止 — 已保留部分回答。</translation>
    </message>
    <message>
        <source>Stopped.</source>
        <translation>已停止。</translation>
    </message>
    <message>
        <source>Stopped at max_tokens (finish_reason: length).</source>
        <translation>已达到 max_tokens 而停止(finish_reason:length)。</translation>
    </message>
    <message>
        <source>Done (finish_reason: %1).</source>
        <translation>完成(finish_reason:%1)。</translation>
    </message>
    <message>
        <source>Run this provider on the CPU</source>
        <translation>让该提供方改在 CPU 上运行</translation>
    </message>
</context>
<context>
    <name>ts::ui::ServeDialog</name>
    <message>
        <source>Serve settings</source>
        <translation>服务设置</translation>
    </message>
    <message>
        <source>Provider → Serve the local model makes the selected local model available to other tools through the OpenAI API.</source>
        <translation>“提供方 → 以 OpenAI 兼容接口提供本地模型”让其他工具通过 OpenAI API 使用所选的本地模型。</translation>
    </message>
    <message>
        <source>Listen on</source>
        <translation>监听范围</translation>
    </message>
    <message>
        <source>&amp;This computer only (127.0.0.1)</source>
        <translation>仅限本机(&amp;T)（127.0.0.1）</translation>
    </message>
    <message>
        <source>&amp;Every network (0.0.0.0): other computers can connect</source>
        <translation>所有网络(&amp;E)（0.0.0.0）：其他计算机也可以连接</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>Require an API &amp;key</source>
        <translation>要求 API 密钥(&amp;K)</translation>
    </message>
    <message>
        <source>Clients send it as the header Authorization: Bearer &lt;key&gt;. It is kept in the system keychain and shown once, when it is made.</source>
        <translation>客户端以请求头 Authorization: Bearer &lt;key&gt; 发送它。密钥保存在系统钥匙串中，只在生成时显示一次。</translation>
    </message>
    <message>
        <source>&amp;New key…</source>
        <translation>新建密钥(&amp;N)…</translation>
    </message>
    <message>
        <source>Make a new key and show it once; the old one stops working the next time Serve starts</source>
        <translation>生成新密钥并显示一次；旧密钥在下次启动服务时失效</translation>
    </message>
    <message>
        <source>Serve is running: these settings apply the next time it starts.</source>
        <translation>服务正在运行：这些设置将在下次启动时生效。</translation>
    </message>
    <message>
        <source>Looking for the key in the keychain…</source>
        <translation>正在钥匙串中查找密钥…</translation>
    </message>
    <message>
        <source>A key is kept in the keychain. It is not shown again: make a new one if it is lost.</source>
        <translation>钥匙串中已保存一个密钥。它不会再次显示：如果丢失，请新建一个。</translation>
    </message>
    <message>
        <source>No key yet.</source>
        <translation>尚无密钥。</translation>
    </message>
    <message>
        <source>The keychain cannot be used (%1): Serve cannot require a key until it can.</source>
        <translation>无法使用钥匙串（%1）：在它可用之前，服务无法要求密钥。</translation>
    </message>
    <message>
        <source>No key yet: one is made and shown once when these settings are saved.</source>
        <translation>尚无密钥：保存这些设置时会生成一个并显示一次。</translation>
    </message>
</context>
<context>
    <name>ts::ui::ServeKeyDialog</name>
    <message>
        <source>The API key for Serve</source>
        <translation>服务的 API 密钥</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <source>It will not be shown again. If it is lost, make a new one under Provider → Serve settings…</source>
        <translation>它不会再次显示。如果丢失，请在“提供方 → 服务设置…”中新建一个。</translation>
    </message>
    <message>
        <source>The key for Serve is on the clipboard.</source>
        <translation>服务的密钥已复制到剪贴板。</translation>
    </message>
    <message>
        <source>Serve the local model requires this key. Copy it into the tools that call it (header Authorization: Bearer &lt;key&gt;).</source>
        <translation>本地模型服务要求此密钥。请将它复制到调用服务的工具中（请求头 Authorization: Bearer &lt;key&gt;）。</translation>
    </message>
</context>
<context>
    <name>ts::ui::ServerPanel</name>
    <message>
        <source>Copy address</source>
        <translation>复制地址</translation>
    </message>
    <message>
        <source>Copy model id</source>
        <translation>复制模型 ID</translation>
    </message>
    <message>
        <source>Stop serving</source>
        <translation>停止服务</translation>
    </message>
    <message>
        <source>Ended</source>
        <translation>结束时间</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Finish</source>
        <translation>结束原因</translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>TTFT</source>
        <translation>TTFT</translation>
    </message>
    <message>
        <source>TPOT</source>
        <translation>TPOT</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Max tokens</source>
        <translation>最大词元数</translation>
    </message>
    <message>
        <source>Prompt tokens (of which cached)</source>
        <translation>提示词元数（其中已缓存）</translation>
    </message>
    <message>
        <source>Time to first token, from the request&apos;s arrival</source>
        <translation>首词元时间，从请求到达时算起</translation>
    </message>
    <message>
        <source>Mean time per output token after the first</source>
        <translation>首个词元之后每个输出词元的平均时间</translation>
    </message>
    <message>
        <source>Copied the server&apos;s address %1.</source>
        <translation>已复制服务器地址 %1。</translation>
    </message>
    <message>
        <source>Copied the model id %1.</source>
        <translation>已复制模型 ID %1。</translation>
    </message>
    <message>
        <source> · requests need the API key</source>
        <translation> · 请求需要 API 密钥</translation>
    </message>
    <message>
        <source>Serving at &lt;b&gt;%1&lt;/b&gt; (OpenAI-compatible)%2</source>
        <translation>正在 &lt;b&gt;%1&lt;/b&gt; 提供服务（OpenAI 兼容）%2</translation>
    </message>
    <message>
        <source>Model id: &lt;b&gt;%1&lt;/b&gt;</source>
        <translation>模型 ID：&lt;b&gt;%1&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Model id: &lt;b&gt;%1&lt;/b&gt; (also answers to &quot;%2&quot;)</source>
        <translation>模型 ID：&lt;b&gt;%1&lt;/b&gt;（也响应“%2”）</translation>
    </message>
    <message>
        <source>Not serving. Provider → Serve the local model starts the server.</source>
        <translation>未在提供服务。“提供方 → 以 OpenAI 兼容接口提供本地模型”会启动服务器。</translation>
    </message>
    <message>
        <source>Running %1 · waiting %2 · %3 · %4 request(s) served</source>
        <translation>运行中 %1 · 等待中 %2 · %3 · 已处理 %4 个请求</translation>
    </message>
    <message>
        <source>● Serving %1 · %2 served</source>
        <translation>● 服务中 %1 · 已处理 %2</translation>
    </message>
    <message>
        <source> (streamed)</source>
        <translation>（流式）</translation>
    </message>
    <message>
        <source>%1 (%2 cached)</source>
        <translation>%1（%2 已缓存）</translation>
    </message>
</context>
<context>
    <name>ts::ui::SweepChart</name>
    <message>
        <source>TTFT p99 (ms)</source>
        <translation>TTFT p99（毫秒）</translation>
    </message>
    <message>
        <source>TPOT p99 (ms)</source>
        <translation>TPOT p99（毫秒）</translation>
    </message>
    <message>
        <source>TTFT SLO</source>
        <translation>TTFT SLO</translation>
    </message>
    <message>
        <source>TPOT SLO</source>
        <translation>TPOT SLO</translation>
    </message>
    <message>
        <source>p99 of each step: where a line crosses its dashed SLO, the service stops meeting it</source>
        <translation>每一步的 p99：曲线越过对应的虚线 SLO 处，即服务开始无法满足它</translation>
    </message>
    <message>
        <source>concurrent requests</source>
        <translation>并发请求数</translation>
    </message>
    <message>
        <source>requests per second</source>
        <translation>每秒请求数</translation>
    </message>
    <message>
        <source>prompt length (words)</source>
        <translation>提示长度（词）</translation>
    </message>
    <message>
        <source>p99 latency per step</source>
        <translation>每步的 p99 延迟</translation>
    </message>
    <message>
        <source>prefill chunk (tokens; 0: whole)</source>
        <translation>预填充分块（令牌；0：整段）</translation>
    </message>
    <message>
        <source>running sequences</source>
        <translation>运行中的序列</translation>
    </message>
    <message>
        <source>TPOT target (ms; 0: unpaced)</source>
        <translation>TPOT 目标（毫秒；0：不限速）</translation>
    </message>
    <message>
        <source>TTFT p99</source>
        <translation>TTFT p99</translation>
    </message>
    <message>
        <source>TPOT p99</source>
        <translation>TPOT p99</translation>
    </message>
    <message>
        <source>%1: %2 p99 %3 ms</source>
        <translation>%1：%2 p99 %3 毫秒</translation>
    </message>
    <message>
        <source>TTFT</source>
        <translation>TTFT</translation>
    </message>
    <message>
        <source>TPOT</source>
        <translation>TPOT</translation>
    </message>
    <message>
        <source>TTFT SLO %1 ms</source>
        <translation>TTFT SLO %1 毫秒</translation>
    </message>
    <message>
        <source>TPOT SLO %1 ms</source>
        <translation>TPOT SLO %1 毫秒</translation>
    </message>
</context>
<context>
    <name>ts::ui::TradeoffChart</name>
    <message>
        <source>TTFT p99 against TPOT p99, one point per setting</source>
        <translation>TTFT p99 对 TPOT p99，每个设置一个点</translation>
    </message>
    <message>
        <source>TPOT p99 (ms)</source>
        <translation>TPOT p99（毫秒）</translation>
    </message>
    <message>
        <source>TTFT p99 (ms)</source>
        <translation>TTFT p99（毫秒）</translation>
    </message>
    <message>
        <source>Each point is one step of the sweep: lower is a faster first token, further left a faster stream once it runs. The curve shows what each setting trades.</source>
        <translation>每个点是扫描中的一步：越低，首个令牌越快；越靠左，开始输出后的流越快。这条曲线显示每个设置在两者之间的取舍。</translation>
    </message>
    <message>
        <source>%1: TTFT p99 %2 ms, TPOT p99 %3 ms</source>
        <translation>%1：TTFT p99 %2 毫秒，TPOT p99 %3 毫秒</translation>
    </message>
</context>
<context>
    <name>ts::ui::WelcomeDialog</name>
    <message>
        <source>Welcome to TokenScope</source>
        <translation>欢迎使用 TokenScope</translation>
    </message>
    <message>
        <source>&lt;b&gt;Chat with a model and watch every token arrive.&lt;/b&gt;&lt;br&gt;TTFT, TPOT and the gap before each token are measured as the answer streams. How would you like to start?</source>
        <translation>&lt;b&gt;与模型对话，看着每个词元到达。&lt;/b&gt;&lt;br&gt;回答流式输出时会测量 TTFT、TPOT 以及每个词元之前的间隔。您想如何开始？</translation>
    </message>
    <message>
        <source>Use the demo model</source>
        <translation>使用演示模型</translation>
    </message>
    <message>
        <source>A tiny built-in model: no key, no GPU, no network. Its text is noise, its timings are real.</source>
        <translation>一个内置的小模型：无需密钥、GPU 或网络。它的文字是噪声，但计时是真实的。</translation>
    </message>
    <message>
        <source>Add an API key</source>
        <translation>添加 API 密钥</translation>
    </message>
    <message>
        <source>TaoToken (one key, one base URL) or any OpenAI-compatible endpoint; the key goes to the system keychain.</source>
        <translation>TaoToken（一个密钥、一个基础 URL）或任何兼容 OpenAI 的端点；密钥保存在系统钥匙串中。</translation>
    </message>
    <message>
        <source>Open a local model</source>
        <translation>打开本地模型</translation>
    </message>
    <message>
        <source>A GGUF file, a Hugging Face folder or a llama2.c checkpoint, run by the built-in engine on the CPU or a CUDA GPU.</source>
        <translation>GGUF 文件、Hugging Face 文件夹或 llama2.c 检查点，由内置引擎在 CPU 或 CUDA GPU 上运行。</translation>
    </message>
    <message>
        <source>Download a model</source>
        <translation>下载模型</translation>
    </message>
    <message>
        <source>TinyStories or Baichuan2 from the Hugging Face hub, resumable and verified.</source>
        <translation>从 Hugging Face Hub 下载 TinyStories 或 Baichuan2，可断点续传并校验。</translation>
    </message>
    <message>
        <source>&amp;Skip</source>
        <translation>跳过(&amp;S)</translation>
    </message>
    <message>
        <source>Start on the demo model; everything here is also in the Provider menu</source>
        <translation>从演示模型开始；这里的所有选项也都在“提供方”菜单中</translation>
    </message>
</context>
<context>
    <name>ts::ui::WindowStatusBar</name>
    <message>
        <source>CPU: CUDA not used</source>
        <translation>CPU：未使用 CUDA</translation>
    </message>
    <message>
        <source>⚠ Serving to every network without a key</source>
        <translation>⚠ 正在无密钥地向所有网络提供服务</translation>
    </message>
</context>
</TS>
