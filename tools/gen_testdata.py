#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_testdata.py - write the small, deterministic Chrome trace files in
testdata/ that the reader tests and the README quick start use.

    python3 tools/gen_testdata.py [OUTDIR]      (default: testdata/)

Every file is synthetic (no profiler ran): shaped like what TF2's trace
viewer, TF1's timeline.Timeline and PyTorch's Kineto write, and like the
edge cases those writers (and Chrome) produce. gzip files carry mtime 0, so
reruns give identical bytes. testdata/README.md describes each file.
"""
import gzip
import io
import json
import os
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', 'testdata')


def write(name, text):
    data = text.encode('utf-8') if isinstance(text, str) else text
    if name.endswith('.gz'):
        buf = io.BytesIO()
        with gzip.GzipFile(filename='', mode='wb', fileobj=buf, mtime=0) as g:
            g.write(data)
        data = buf.getvalue()
    with open(os.path.join(OUT, name), 'wb') as f:
        f.write(data)


def dumps(obj):
    return json.dumps(obj, separators=(',', ':'))


def tf2_input_bound():
    """TF2 trace viewer JSON: 4 steps, each waiting ~30 ms on tf.data before a
    short burst of GPU work: clearly input-bound."""
    steps_tid, ops_tid, scope_tid = 3735928559, 3735928562, 3735928561
    py, it = 2935847641, 2935847700
    ev = [
        {"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/device:GPU:0"}},
        {"ph": "M", "pid": 1, "name": "process_sort_index", "args": {"sort_index": 1}},
        {"ph": "M", "pid": 1, "tid": 13, "name": "thread_name", "args": {"name": "Stream #13(Compute)"}},
        {"ph": "M", "pid": 1, "tid": 14, "name": "thread_name", "args": {"name": "Stream #14(MemcpyH2D)"}},
        {"ph": "M", "pid": 1, "tid": 15, "name": "thread_name", "args": {"name": "Stream #15(MemcpyD2H)"}},
        {"ph": "M", "pid": 1, "tid": steps_tid, "name": "thread_name", "args": {"name": "Steps"}},
        {"ph": "M", "pid": 1, "tid": ops_tid, "name": "thread_name", "args": {"name": "TensorFlow Ops"}},
        {"ph": "M", "pid": 1, "tid": scope_tid, "name": "thread_name", "args": {"name": "TensorFlow Name Scope"}},
        {"ph": "M", "pid": 501, "name": "process_name", "args": {"name": "/host:CPU"}},
        {"ph": "M", "pid": 501, "tid": py, "name": "thread_name", "args": {"name": "python3"}},
        {"ph": "M", "pid": 501, "tid": it, "name": "thread_name", "args": {"name": "tf_data_iterator_get_next/1"}},
    ]
    t = 1000.0                  # microseconds
    corr = 100
    for step in range(4):
        g = str(step)
        call = "traced-nonXla" if step == 0 else "notTraced-nonXla"
        step_start = t
        ev.append({"ph": "X", "pid": 501, "tid": py, "ts": t, "dur": 2.5, "name": "train_function",
                   "args": {"tf_function_call": call, "tracing_count": "1"}})
        ev.append({"ph": "X", "pid": 501, "tid": it, "ts": t + 3, "dur": 30000.125,
                   "name": "Iterator::Model::Prefetch::ParallelMapV2", "args": {"group_id": g}})
        t += 30010
        ev.append({"ph": "X", "pid": 501, "tid": py, "ts": t, "dur": 40.0, "name": "EagerExecute: __inference_train_function_712",
                   "args": {"group_id": g}})
        ev.append({"ph": "X", "pid": 1, "tid": 14, "ts": t + 5, "dur": 120.5, "name": "MemcpyH2D",
                   "args": {"annotation": "IteratorGetNext/_4:_Recv", "correlation_id": str(corr), "group_id": g,
                            "memcpy_details": "size:3145728 dest:0 async:1"}})
        corr += 1
        k = t + 130
        for i in range(6):
            ev.append({"ph": "X", "pid": 501, "tid": py, "ts": k - 3, "dur": 2.0, "name": "cudaLaunchKernel",
                       "args": {"correlation_id": str(corr)}})
            ev.append({"ph": "X", "pid": 1, "tid": 13, "ts": k, "dur": 250.25, "name": "volta_sgemm_128x64_nn",
                       "args": {"annotation": "model/dense_%d/MatMul:MatMul#id=%d#" % (i, i), "correlation_id": str(corr),
                                "group_id": g}})
            ev.append({"ph": "X", "pid": 1, "tid": ops_tid, "ts": k, "dur": 250.25, "name": "model/dense_%d/MatMul" % i,
                       "args": {"group_id": g}})
            corr += 1
            k += 260
        ev.append({"ph": "X", "pid": 1, "tid": 15, "ts": k, "dur": 8.0, "name": "MemcpyD2H",
                   "args": {"correlation_id": str(corr), "group_id": g, "memcpy_details": "size:4 dest:1 async:0"}})
        corr += 1
        ev.append({"ph": "X", "pid": 501, "tid": py, "ts": k - 2, "dur": 12.0, "name": "cuStreamSynchronize"})
        t = k + 20
        ev.append({"ph": "X", "pid": 1, "tid": steps_tid, "ts": step_start, "dur": t - step_start, "name": g,
                   "args": {"group_id": g, "step_name": g}})
    ev.append({})
    doc = '{"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[' + \
        ',\n'.join(dumps(e) for e in ev) + ']}'
    write('synth_tf2.trace.json.gz', doc)


def kineto():
    """PyTorch profiler JSON (2022+ layout): 3 ProfilerSteps, cpu_op, launches,
    kernels, an H2D memcpy with bytes, an NCCL kernel, ac2g flows; M records last."""
    pid, tid = 4242, 4242
    ev = []
    t = 5000.0
    corr = 1
    for step in range(3):
        s0 = t
        ev.append({"ph": "X", "cat": "user_annotation", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
                   "pid": pid, "tid": tid, "ts": t, "dur": 800.0})
        t += 810
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": pid, "tid": tid, "ts": t, "dur": 30.0})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": pid, "tid": tid, "ts": t + 2,
                   "dur": 10.0, "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7,
                   "ts": t + 15, "dur": 40.5, "args": {"device": 0, "stream": 7, "correlation": corr, "bytes": 602112}})
        corr += 1
        t += 60
        for i in range(3):
            ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": pid, "tid": tid, "ts": t, "dur": 20.0})
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": tid, "ts": t + 5,
                       "dur": 6.0, "args": {"correlation": corr}})
            ev.append({"ph": "s", "cat": "ac2g", "name": "ac2g", "id": corr, "pid": pid, "tid": tid, "ts": t + 5})
            ev.append({"ph": "X", "cat": "kernel", "name": "implicit_convolve_sgemm", "pid": 0, "tid": 7, "ts": t + 30,
                       "dur": 150.0, "args": {"device": 0, "stream": 7, "correlation": corr}})
            ev.append({"ph": "f", "cat": "ac2g", "name": "ac2g", "id": corr, "pid": 0, "tid": 7, "ts": t + 30, "bp": "e"})
            corr += 1
            t += 160
        ev.append({"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float", "pid": 0, "tid": 20,
                   "ts": t, "dur": 90.0, "args": {"device": 0, "stream": 20, "correlation": corr}})
        corr += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": pid, "tid": tid, "ts": t,
                   "dur": 95.0})
        t += 100
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (step + 10), "pid": pid, "tid": tid,
                   "ts": s0, "dur": t - s0})
        ev.append({"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#%d" % (step + 10), "pid": 0, "tid": 7,
                   "ts": s0 + 800, "dur": t - s0 - 800})
        t += 5
    ev.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": pid, "tid": tid, "ts": t})
    ev += [
        {"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "python"}},
        {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "python"}},
        {"ph": "M", "name": "process_labels", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
        {"ph": "M", "name": "process_sort_index", "pid": 0, "tid": 0, "args": {"sort_index": 5000000}},
        {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7"}},
        {"ph": "M", "name": "thread_name", "pid": 0, "tid": 20, "args": {"name": "stream 20"}},
        {"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": "thread 4242 (python)"}},
    ]
    doc = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "Synthetic GPU", "totalGlobalMem": 16000000000}],
           "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2}}
    text = dumps(doc)[:-1] + ',"traceEvents":[\n' + ',\n'.join(dumps(e) for e in ev) + \
        '\n],"traceName":"kineto_small.json","displayTimeUnit":"ms"}'
    write('kineto_small.json', text)


def tf1():
    """TF1 timeline.Timeline JSON with one GPU: op-level process, two streams,
    and the /stream:all and /memcpy duplicate views the reader must drop."""
    names = ["Allocators", "/job:localhost/replica:0/task:0/device:GPU:0 Compute",
             "/job:localhost/replica:0/task:0/device:GPU:0 Tensors",
             "/device:GPU:0/stream:all Compute", "/device:GPU:0/stream:all Tensors",
             "/device:GPU:0/stream:12 Compute", "/device:GPU:0/stream:12 Tensors",
             "/device:GPU:0/stream:13 Compute", "/device:GPU:0/stream:13 Tensors",
             "/device:GPU:0/memcpy Compute", "/device:GPU:0/memcpy Tensors",
             "/job:localhost/replica:0/task:0/device:CPU:0 Compute",
             "/job:localhost/replica:0/task:0/device:CPU:0 Tensors"]
    ev = [{"name": "process_name", "ph": "M", "pid": i, "args": {"name": n}} for i, n in enumerate(names)]
    t = 1512637030654854
    ev.append({"ph": "X", "cat": "Op", "name": "IteratorGetNext", "pid": 11, "tid": 0, "ts": t, "dur": 500,
               "args": {"name": "IteratorGetNext", "op": "IteratorGetNext"}})
    ev.append({"ph": "s", "cat": "DataFlow", "name": "IteratorGetNext", "pid": 11, "tid": 0, "ts": t + 500, "id": 0})
    ev.append({"ph": "t", "cat": "DataFlow", "name": "IteratorGetNext", "pid": 1, "tid": 0, "ts": t + 510, "id": 0})
    t += 510
    ev.append({"ph": "X", "cat": "Op", "name": "MEMCPYHtoD", "pid": 1, "tid": 0, "ts": t, "dur": 20,
               "args": {"name": "edge_1_IteratorGetNext", "op": "MEMCPYHtoD"}})
    for pid in (7, 9):
        ev.append({"ph": "X", "cat": "Op", "name": "MEMCPYHtoD", "pid": pid, "tid": 0, "ts": t + 5, "dur": 60,
                   "args": {"name": "edge_1_IteratorGetNext", "op": "MEMCPYHtoD"}})
    t += 70
    for i, op in enumerate(["Conv2D", "Relu", "MatMul"]):
        ev.append({"ph": "X", "cat": "Op", "name": op, "pid": 1, "tid": 0, "ts": t, "dur": 15,
                   "args": {"name": "model/%s_%d" % (op.lower(), i), "op": op}})
        for pid in (5, 3):
            ev.append({"ph": "X", "cat": "Op", "name": op, "pid": pid, "tid": 0, "ts": t + 10, "dur": 100,
                       "args": {"name": "model/%s_%d" % (op.lower(), i), "op": op}})
        t += 110
    ev.append({"ph": "X", "cat": "Op", "name": "MEMCPYDtoH", "pid": 1, "tid": 0, "ts": t, "dur": 10,
               "args": {"name": "edge_9_loss", "op": "MEMCPYDtoH"}})
    for pid in (7, 9):
        ev.append({"ph": "X", "cat": "Op", "name": "MEMCPYDtoH", "pid": pid, "tid": 0, "ts": t + 4, "dur": 6,
                   "args": {"name": "edge_9_loss", "op": "MEMCPYDtoH"}})
    # pretty-printed, as timeline.Timeline(...).generate_chrome_trace_format(show_memory=False) does
    write('synth_tf1_timeline.json', json.dumps({"traceEvents": ev}, indent=4))


def edges():
    x = '{"ph":"X","pid":1,"tid":1,"ts":%s,"dur":%s,"name":"%s"}'
    # bare array, no final ']' (the Trace Event Format allows it)
    write('edge_bare_array_no_close.json',
          '[' + ',\n'.join(x % (10 * i, 5, "work") for i in range(4)) + ',\n')
    # trailing commas everywhere JSON forbids them
    write('edge_trailing_commas.json',
          '{"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"a","args":{"k":[1,2,],},},\n'
          ' {"ph":"X","pid":1,"tid":1,"ts":5 , "dur":1,"name":"b, c]",} , ],"displayTimeUnit":"ms",}\n')
    # a final {} as TF2 writes it, and a record with no 'ph'
    write('edge_final_empty.json', '{"traceEvents":[' + x % (0, 1, "a") + ',{"name":"no phase"},{}]}')
    # UTF-8 BOM, CRLF and tabs around the value
    write('edge_bom.json', b'\xef\xbb\xbf \r\n\t[' + (x % (0, 3, "caf\u00e9")).encode('utf-8') + b']\r\n')
    # string pids and tids, as old Kineto writes them
    write('edge_string_ids.json',
          '[{"ph":"X","pid":"Traces","tid":"PyTorch Profiler","ts":0,"dur":100,"name":"span"},\n'
          ' {"ph":"X","pid":"25738","tid":"25738","ts":1,"dur":2,"name":"aten::add"},\n'
          ' {"ph":"X","pid":25738,"tid":25738,"ts":4,"dur":2,"name":"aten::mul"},\n'
          ' {"ph":"X","pid":0,"tid":"stream 7","ts":5,"dur":3,"name":"kernel_a","cat":"Kernel"}]')
    # numbers given as strings, exponents, and rounding at the nanosecond
    write('edge_numbers_as_strings.json',
          '[{"ph":"X","pid":"1","tid":"2","ts":"1666382280874284.123","dur":"6793.5895","name":"s"},\n'
          ' {"ph":"X","pid":1,"tid":2,"ts":1.5e3,"dur":2.5E-3,"name":"e"},\n'
          ' {"ph":"X","pid":1,"tid":2,"ts":0.0004999,"dur":0.0005,"name":"r"}]')
    # integers beyond 2^63 (and below -2^63) in args, and a huge float
    write('edge_big_int_args.json',
          '[{"ph":"X","pid":1,"tid":1,"ts":0,"dur":1,"name":"k","cat":"kernel",'
          '"args":{"Comms Id":10159970886766084423,"neg":-99999999999999999999999,"f":1e400,'
          '"correlation":18446744073709551615,"bytes":123456789012345678901234567890}}]')
    # B/E: nested pairs, an E with no B, a B never closed
    write('edge_unmatched_be.json',
          '[{"ph":"B","pid":1,"tid":1,"ts":0,"name":"outer"},\n'
          ' {"ph":"B","pid":1,"tid":1,"ts":10,"name":"inner"},\n'
          ' {"ph":"E","pid":1,"tid":1,"ts":20},\n'
          ' {"ph":"E","pid":1,"tid":1,"ts":30},\n'
          ' {"ph":"E","pid":1,"tid":2,"ts":35},\n'
          ' {"ph":"B","pid":1,"tid":2,"ts":40,"name":"never ends"},\n'
          ' {"ph":"X","pid":1,"tid":1,"ts":50,"dur":50,"name":"last"}]')
    # phases we count and ignore, and phases nobody knows
    recs = []
    for ph in "CsftbenNODRcz":
        recs.append('{"ph":"%s","pid":1,"tid":1,"ts":1,"name":"p","id":1}' % ph)
    recs.append('{"ph":"i","pid":1,"tid":1,"ts":2,"name":"instant","s":"t"}')
    recs.append('{"ph":"I","pid":1,"tid":1,"ts":3,"name":"Instant"}')
    recs.append('{"ph":"zz","pid":1,"tid":1,"ts":3,"name":"two letters"}')
    write('edge_phases.json', '[' + ',\n'.join(recs) + ']')
    # bad inputs: errors with offsets
    write('bad_negative_dur.json', '[{"ph":"X","pid":1,"tid":1,"ts":0,"dur":1,"name":"a"},\n'
                                   ' {"ph":"X","pid":1,"tid":1,"ts":5,"dur":-2,"name":"b"}]')
    write('bad_missing_comma.json', '{"traceEvents":[{"ph":"X","ts":1} {"ph":"X","ts":2}]}')
    write('bad_ts_text.json', '[{"ph":"X","pid":1,"tid":1,"ts":"soon","dur":1,"name":"a"}]')
    # gzip cut in the middle of its deflate stream
    buf = io.BytesIO()
    with gzip.GzipFile(filename='', mode='wb', fileobj=buf, mtime=0) as g:
        g.write(('[' + ',\n'.join(x % (10 * i, 5, "work%d" % i) for i in range(400)) + ']').encode())
    data = buf.getvalue()
    with open(os.path.join(OUT, 'edge_truncated_gzip.json.gz'), 'wb') as f:
        f.write(data[:len(data) // 2])


if __name__ == '__main__':
    tf2_input_bound()
    kineto()
    tf1()
    edges()
