#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# make_seeds.py - (re)write the hand-made seed inputs under
# testdata/fuzz/<target>/seed-*: small traces in every format and dialect we
# read, plus edge cases. Nothing here is copied from $TPA_CORPUS; the
# shapes follow the formats as doc/design.md 3 reads them. Crash regressions are
# named crash-* and are never touched by this script.
#   python3 tests/fuzz/make_seeds.py
import gzip
import json
import os
import struct
import sys
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'testdata', 'fuzz')


def put(target, name, data, prefix='seed-'):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, prefix + name), 'wb') as f:
        f.write(data)


def gz(data):
    if isinstance(data, str):
        data = data.encode()
    return gzip.compress(data, mtime=0)


# ---- Chrome trace JSON ---------------------------------------------------

TF2 = ('{"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":['
       '{"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0"}},'
       '{"ph":"M","pid":1,"tid":14,"name":"thread_name","args":{"name":"Stream #14(MemcpyH2D)"}},'
       '{"ph":"M","pid":1,"tid":13,"name":"thread_name","args":{"name":"Stream #13(Compute)"}},'
       '{"ph":"M","pid":1,"tid":3735928559,"name":"thread_name","args":{"name":"Steps"}},'
       '{"ph":"M","pid":1,"tid":3735928562,"name":"thread_name","args":{"name":"TensorFlow Ops"}},'
       '{"ph":"M","pid":501,"name":"process_name","args":{"name":"/host:CPU"}},'
       '{"ph":"M","pid":501,"tid":2935847641,"name":"thread_name","args":{"name":"python3"}},'
       '{"ph":"M","pid":501,"name":"process_sort_index","args":{"sort_index":2}},'
       '{"ph":"X","pid":1,"tid":3735928559,"ts":666001.988,"dur":40978.801,"name":"EagerKernelExecute 0",'
       '"args":{"group_id":"0","step_name":"EagerKernelExecute 0"}},'
       '{"ph":"X","pid":1,"tid":14,"ts":6793.589,"dur":28652.822,"name":"MemcpyH2D","args":{'
       '"annotation":"IteratorGetNext/_4:_Recv","correlation_id":"37224","group_id":"0",'
       '"memcpy_details":"size:100663296 dest:0 async:1"}},'
       '{"ph":"X","pid":1,"tid":13,"ts":6800.5,"dur":12.25,"name":"volta_sgemm_128x64_nn",'
       '"args":{"annotation":"model/dense/MatMul:MatMul","correlation_id":"37225","group_id":"0",'
       '"kernel_details":"regs:128 shm:0 grid:1,1,1 block:256,1,1"}},'
       '{"ph":"X","pid":1,"tid":3735928562,"ts":6800.5,"dur":12.25,"name":"model/dense/MatMul:MatMul"},'
       '{"ph":"X","pid":501,"tid":2935847641,"ts":631609.895,"dur":15878.21,"name":"train_function",'
       '"args":{"tf_function_call":"notTraced-nonXla","tracing_count":"2"}},'
       '{"ph":"X","pid":501,"tid":2935847641,"ts":631700,"dur":100,"name":"Iterator::Model::Prefetch",'
       '"args":{"id":"1","parent_id":"0","group_id":"0"}},'
       '{"ph":"X","pid":501,"tid":2935847641,"ts":631800,"dur":50,"name":"cuStreamSynchronize"},'
       '{}]}')

TF1 = ('{"traceEvents":[\n'
       '{"name":"process_name","ph":"M","pid":0,"args":{"name":"Allocators"}},\n'
       '{"name":"process_name","ph":"M","pid":3,"args":{"name":"/job:localhost/replica:0/task:0/device:GPU:0 Compute"}},\n'
       '{"name":"process_name","ph":"M","pid":5,"args":{"name":"/device:GPU:0/stream:all Compute"}},\n'
       '{"name":"process_name","ph":"M","pid":1,"args":{"name":"/device:GPU:0/memcpy Compute"}},\n'
       '{"ph":"X","cat":"Op","name":"Mul","pid":3,"tid":0,"ts":1512637030655676,"dur":38,'
       '"args":{"name":"Train/mul_2","op":"Mul","input0":"a","input1":"b"}},\n'
       '{"ph":"X","cat":"Op","name":"Mul","pid":5,"tid":0,"ts":1512637030655680,"dur":30,'
       '"args":{"name":"Train/mul_2","op":"Mul"}},\n'
       '{"ph":"s","cat":"DataFlow","name":"OneShotIterator","pid":1,"tid":1,"ts":1512637030656963,"id":0},\n'
       '{"ph":"t","cat":"DataFlow","name":"OneShotIterator","pid":3,"tid":0,"ts":1512637030656970,"id":0},\n'
       '{"args":{"op":"MEMCPYHtoD","name":"edge_116__arg_Placeholder_2_0_0"},"ts":1523802082501333,'
       '"name":"MEMCPYHtoD","cat":"Op","tid":0,"dur":42,"pid":1,"ph":"X"}\n'
       ']}\n')

KINETO = ('{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA A100","computeMajor":8,'
          '"computeMinor":0,"totalGlobalMem":42314694656,"numSms":108}],'
          '"distributedInfo":{"backend":"nccl","rank":0,"world_size":2},'
          '"displayTimeUnit":"ms","baseTimeNanoseconds":1695835535000000000,"traceEvents":['
          '{"ph":"M","name":"process_name","pid":2910249,"tid":0,"args":{"name":"python"}},'
          '{"ph":"M","name":"process_labels","pid":0,"tid":0,"args":{"labels":"GPU 0"}},'
          '{"ph":"M","name":"thread_name","pid":0,"tid":7,"args":{"name":"stream 7"}},'
          '{"ph":"X","cat":"user_annotation","name":"ProfilerStep#4","pid":2910249,"tid":2910249,'
          '"ts":4458676416788.066,"dur":222442.191,"args":{"External id":1,"Record function id":1}},'
          '{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":2910249,"tid":2910249,"ts":4458676416800,'
          '"dur":30.5,"args":{"External id":2}},'
          '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":2910249,"tid":2910249,'
          '"ts":4458676416810,"dur":5,"args":{"correlation":60047,"External id":2}},'
          '{"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)",'
          '"pid":0,"tid":40,"ts":4458677009853.422,"dur":2636.669,"args":{"device":0,"stream":40,'
          '"correlation":60047,"Collective name":"allreduce","Group size":2,'
          '"Comms Id":10159970886766084423}},'
          '{"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoD (Device -> Device)","pid":0,"tid":7,'
          '"ts":4458677052061.431,"dur":5.088,"args":{"stream":7,"correlation":64014,"bytes":4000,'
          '"memory bandwidth (GB/s)":0.786}},'
          '{"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":7,"ts":4458677052070,'
          '"dur":1,"args":{"bytes":64}},'
          '{"ph":"X","cat":"cuda_sync","name":"cudaStreamSynchronize","pid":2910249,"tid":2910249,'
          '"ts":4458677052080,"dur":10},'
          '{"ph":"s","id":60047,"pid":2910249,"tid":2910249,"ts":4458676416810,"cat":"ac2g","name":"ac2g"},'
          '{"ph":"f","id":60047,"pid":0,"tid":40,"ts":4458677009853.422,"cat":"ac2g","name":"ac2g","bp":"e"},'
          '{"ph":"i","s":"t","name":"[memory]","pid":2910249,"tid":2910249,"ts":4458677052090,'
          '"args":{"Bytes":1024,"Total Allocated":2048}}'
          '],"traceName":"trace.json"}')

KINETO_OLD = ('[{"ph":"X","cat":"Operator","name":"ProfilerStep#5","pid":25738,"tid":"25738",'
              '"ts":100,"dur":50},'
              '{"ph":"X","cat":"Kernel","name":"void gemm<float>()","pid":0,"tid":"stream 7","ts":110,'
              '"dur":20,"args":{"correlation":5}},'
              '{"ph":"X","cat":"Runtime","name":"cudaLaunchKernel","pid":25738,"tid":"25738","ts":105,'
              '"dur":3,"args":{"correlation":5}},'
              '{"ph":"X","cat":"Memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,'
              '"tid":"stream 7","ts":140,"dur":4,"args":{"bytes":400}},'
              '{"ph":"s","cat":"async","name":"launch","pid":25738,"tid":"25738","ts":105,"id":5},'
              '{"ph":"X","cat":"Trace","name":"PyTorch Profiler","pid":"Traces","tid":"PyTorch Profiler","ts":90,"dur":100}'
              ']')

CATAPULT = ('[{"name":"MessageLoop::RunTask","cat":"toplevel","ph":"B","pid":1,"tid":2,"ts":10},'
            '{"name":"Foo","cat":"cc","ph":"B","pid":1,"tid":2,"ts":11},'
            '{"name":"Foo","cat":"cc","ph":"E","pid":1,"tid":2,"ts":15},'
            '{"name":"Bar","cat":"ipc","ph":"E","pid":1,"tid":3,"ts":16},'
            '{"name":"ctr","ph":"C","pid":1,"ts":17,"args":{"value":3}},'
            '{"name":"inst","ph":"I","pid":1,"tid":2,"ts":18,"s":"g"},'
            '{"name":"obj","ph":"O","pid":1,"tid":2,"ts":18,"id":"0x1","args":{"snapshot":{"a":[1,2,{"b":null}]}}},'
            '{"name":"async","cat":"gpu","ph":"b","pid":1,"tid":2,"ts":19,"id2":{"local":"0x2"}},'
            '{"name":"async","cat":"gpu","ph":"e","pid":1,"tid":2,"ts":21,"id2":{"local":"0x2"}},'
            '{"name":"S","ph":"S","pid":1,"tid":2,"ts":19,"id":7},'
            '{"name":"S","ph":"F","pid":1,"tid":2,"ts":22,"id":7},'
            '{"name":"sample","ph":"P","pid":1,"tid":2,"ts":23},'
            '{"name":"R","ph":"R","pid":1,"tid":2,"ts":24},'
            '{"name":"weird","ph":"Z","pid":1,"tid":2,"ts":25}')  # no final ]

EDGE = {
    'empty': '',
    'ws': ' \n\t',
    'bom': '\ufeff[]',
    'bare_empty_array': '[]',
    'empty_object': '{}',
    'empty_events': '{"traceEvents":[]}',
    'only_empty_records': '[{},{},{}]',
    'truncated_string': '{"traceEvents":[{"ph":"X","name":"abc',
    'truncated_number': '{"traceEvents":[{"ph":"X","name":"a","ts":12.5',
    'truncated_object': '[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1},{"ph":',
    'bad_utf8': b'[{"ph":"X","name":"\xff\xfe\xc3","ts":1,"dur":2,"pid":1,"tid":1}]',
    'escapes': '[{"ph":"X","name":"a\\u00e9\\ud83d\\ude00\\n\\"\\\\","ts":1,"dur":2,"pid":1,"tid":1}]',
    'lone_surrogate': '[{"ph":"X","name":"\\ud800x","ts":1,"dur":2,"pid":1,"tid":1}]',
    'nan_strings': '[{"ph":"X","name":"a","ts":"NaN","dur":"Infinity","pid":1,"tid":1}]',
    'nan_bare': '[{"ph":"X","name":"a","ts":NaN,"dur":Infinity,"pid":1,"tid":1}]',
    'negative_dur': '[{"ph":"X","name":"a","ts":10,"dur":-5,"pid":1,"tid":1}]',
    'huge_dur': '[{"ph":"X","name":"a","ts":9223372036854775,"dur":9223372036854775807,"pid":1,"tid":1}]',
    'huge_ts': '[{"ph":"X","name":"a","ts":1e300,"dur":1,"pid":1,"tid":1},'
               '{"ph":"X","name":"b","ts":-9223372036854775.808,"dur":1,"pid":1,"tid":1}]',
    'exponents': '[{"ph":"X","name":"a","ts":1.5e3,"dur":2E-1,"pid":1,"tid":1},'
                 '{"ph":"X","name":"a","ts":0.0000001,"dur":1666382280874284.123,"pid":1,"tid":1}]',
    'ts_strings': '[{"ph":"X","name":"a","ts":"100","dur":"5","pid":"1","tid":"x"}]',
    'types_wrong': '[{"ph":1,"name":2,"ts":true,"dur":null,"pid":[],"tid":{},"args":"x","cat":3}]',
    'phase_long': '[{"ph":"XX","name":"a","ts":1,"dur":1},{"ph":"","name":"a","ts":1}]',
    'dup_keys': '[{"ph":"X","ph":"B","name":"a","name":"b","ts":1,"ts":2,"dur":3,"dur":-1,"pid":1,"tid":1}]',
    'unmatched_be': '[{"ph":"E","name":"a","ts":1,"pid":1,"tid":1},'
                    '{"ph":"B","name":"b","ts":2,"pid":1,"tid":1},'
                    '{"ph":"B","name":"c","ts":3,"pid":1,"tid":1},'
                    '{"ph":"E","ts":4,"pid":1,"tid":1}]',
    'out_of_order': '[{"ph":"X","name":"a","ts":100,"dur":1,"pid":1,"tid":1},'
                    '{"ph":"E","name":"b","ts":50,"pid":1,"tid":1},'
                    '{"ph":"B","name":"b","ts":40,"pid":1,"tid":1},'
                    '{"ph":"X","name":"c","ts":10,"dur":1,"pid":1,"tid":1}]',
    'deep_args': '[{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1,"args":' +
                 '{"a":[' * 40 + '1' + ']}' * 40 + '}]',
    'deep_top': '[' * 200,
    'trailing_garbage': '[{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1}] xyz',
    'trailing_comma': '[{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1},]',
    'two_docs': '{"traceEvents":[]}{"traceEvents":[]}',
    'events_not_array': '{"traceEvents":{"ph":"X"}}',
    'nested_traceevents': '{"metadata":{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1}]},'
                          '"traceEvents":[{"ph":"X","name":"b","ts":1,"dur":1,"pid":1,"tid":1}]}',
    'big_ints': '[{"ph":"X","name":"a","ts":1,"dur":1,"pid":18446744073709551616,'
                '"tid":-9223372036854775809,"id":99999999999999999999999}]',
    'metadata_odd': '[{"ph":"M","name":"process_name","pid":1},{"ph":"M","name":"thread_name",'
                    '"pid":1,"tid":1,"args":{"name":5}},{"ph":"M","name":"process_sort_index",'
                    '"pid":1,"args":{"sort_index":"x"}},{"ph":"M","name":"unknown","pid":1}]',
    # no step marker: steps from the calls that recur (a tf.function, a
    # Keras train function, the optimizer) or from TF group ids
    'tf2_unmarked': '{"traceEvents":[{"ph":"M","pid":7,"name":"process_name",'
                    '"args":{"name":"/host:CPU"}},{"ph":"M","pid":7,"tid":1,"name":'
                    '"thread_name","args":{"name":"python3"}}' +
                    ''.join(',{"ph":"X","pid":7,"tid":1,"ts":%d,"dur":40,"name":'
                            '"multi_step_on_iterator"},{"ph":"X","pid":7,"tid":1,"ts":%d,'
                            '"dur":30,"name":"EagerLocalExecute: __inference_f_1",'
                            '"args":{"group_id":%d}},{"ph":"X","pid":7,"tid":2,"ts":%d,'
                            '"dur":20,"name":"MatMul","args":{"group_id":%d}}'
                            % (100 * k, 100 * k + 5, k, 100 * k + 10, k) for k in range(3)) +
                    ']}',
    # a Keras fit as an XSpace shows it: Python's tf.function calls, the
    # step's wait for its batch, a producer thread ahead, no group ids
    'tf2_producer': '{"traceEvents":[{"ph":"M","pid":7,"name":"process_name",'
                    '"args":{"name":"/host:CPU"}}' + ''.join(
                        ',{"ph":"M","pid":7,"tid":%d,"name":"thread_name","args":{"name":"%s"}}'
                        % t for t in ((1, 'python'), (2, 'tf_data_iterator_get_next/5'),
                                      (3, 'tf_data_iterator_resource/6'))) +
                    ''.join(',{"ph":"X","pid":7,"tid":1,"ts":%d,"dur":90,"name":'
                            '"multi_step_on_iterator","args":{"tf_function_call":'
                            '"notTraced-nonXla"}},{"ph":"X","pid":7,"tid":2,"ts":%d,"dur":30,'
                            '"name":"IteratorGetNextOp::DoCompute"},{"ph":"X","pid":7,"tid":3,'
                            '"ts":%d,"dur":100,"name":"Iterator::MapAndBatch"}'
                            % (100 * k, 100 * k, 100 * k) for k in range(3)) + ']}',
    'kineto_unmarked': '{"schemaVersion":1,"traceEvents":[' + ','.join(
        '{"ph":"X","cat":"user_annotation","name":"enumerate(DataLoader)#'
        '_MultiProcessingDataLoaderIter.__next__","pid":1,"tid":1,"ts":%d,"dur":30},'
        '{"ph":"X","cat":"user_annotation","name":"Optimizer.zero_grad#SGD.zero_grad",'
        '"pid":1,"tid":1,"ts":%d,"dur":5},{"ph":"X","cat":"cpu_op","name":"aten::mm",'
        '"pid":1,"tid":1,"ts":%d,"dur":40}' % (100 * k, 100 * k + 35, 100 * k + 45)
        for k in range(3)) + ']}',
    # a user's record_function around each iteration, another around each
    # layer, no known name
    'kineto_annotated': '{"schemaVersion":1,"traceEvents":[' + ','.join(
        '{"ph":"X","cat":"user_annotation","name":"train_step","pid":1,"tid":1,'
        '"ts":%d,"dur":80},{"ph":"X","cat":"user_annotation","name":"layer","pid":1,'
        '"tid":1,"ts":%d,"dur":10},{"ph":"X","cat":"cpu_op","name":"aten::mm",'
        '"pid":1,"tid":1,"ts":%d,"dur":40}' % (100 * k, 100 * k + 5, 100 * k + 20)
        for k in range(3)) + ']}',
    # one record as Kineto writes its CPU ops, lists and maps in its args
    # (fuzz_chrome_json also makes an events array of it, for the scanner)
    'record_nested_args': '{"ph":"X","cat":"cpu_op","name":"aten::conv2d","pid":1,"tid":2,'
                          '"ts":1610366728298088,"dur":12,"args":{"External id":3,'
                          '"Input Dims":[[32,3,224,224],[64,3,7,7],[],[]],"Input type":'
                          '["float","float","",""],"m":{"k":[true,false,null,-0.5e-3,'
                          '"s\\"t",{}]},"name":"n"}}',
    'gz_tf2': gz(TF2),
    'gz_concat': gz('[{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1},') +
                 gz('{"ph":"X","name":"b","ts":2,"dur":1,"pid":1,"tid":1}]'),
    'gz_truncated': gz(KINETO)[:200],
    'gz_garbage': b'\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbagegarbage',
    'zlib': __import__('zlib').compress(TF1.encode()),
}


def chrome():
    put('chrome_json', 'tf2.json', TF2)
    put('chrome_json', 'tf1.json', TF1)
    put('chrome_json', 'kineto.json', KINETO)
    put('chrome_json', 'kineto_old.json', KINETO_OLD)
    put('chrome_json', 'catapult.json', CATAPULT)
    for k, v in EDGE.items():
        put('chrome_json', k, v)


# ---- protobuf ------------------------------------------------------------

def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7f
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def fv(field, n):           # varint field
    return varint(field << 3) + varint(n)


def fl(field, data):        # length-delimited field
    if isinstance(data, str):
        data = data.encode()
    return varint(field << 3 | 2) + varint(len(data)) + data


def fd(field, x):           # double
    return varint(field << 3 | 1) + struct.pack('<d', x)


def f64(field, n):          # fixed64
    return varint(field << 3 | 1) + struct.pack('<Q', n & ((1 << 64) - 1))


def xstat(mid, kind, v):
    body = fv(1, mid)
    if kind == 'd':
        body += fd(2, v)
    elif kind == 'u':
        body += fv(3, v)
    elif kind == 'i':
        body += fv(4, v)
    elif kind == 's':
        body += fl(5, v)
    elif kind == 'b':
        body += fl(6, v)
    elif kind == 'r':
        body += fv(7, v)
    return body


def xplane(pid, name, lines, events_meta, stats_meta, stats=()):
    body = fv(1, pid) + fl(2, name)
    for ln in lines:
        body += fl(3, ln)
    for mid, mname in events_meta.items():       # map<int64, XEventMetadata>
        body += fl(4, fv(1, mid) + fl(2, fv(1, mid) + fl(2, mname)))
    for mid, mname in stats_meta.items():        # map<int64, XStatMetadata>
        body += fl(5, fv(1, mid) + fl(2, fv(1, mid) + fl(2, mname)))
    for s in stats:
        body += fl(6, s)
    return body


def xline(lid, name, ts_ns, events, display=None):
    body = fv(1, lid) + fl(2, name) + fv(3, ts_ns)
    for e in events:
        body += fl(4, e)
    body += fv(9, 10 ** 9)
    if display:
        body += fv(10, lid) + fl(11, display)
    return body


def xevent(mid, off_ps, dur_ps, stats=()):
    body = fv(1, mid) + fv(2, off_ps) + fv(3, dur_ps)
    for s in stats:
        body += fl(4, s)
    return body


def xspace(t0=96769, pending=False):
    stat_names = {1: 'group_id', 2: 'step_name', 3: 'correlation_id', 4: 'kernel_details',
                  5: 'memcpy_details', 6: 'tf_op', 7: 'MatMul:MatMul', 8: 'clock_rate',
                  9: 'core_count', 10: 'compute_cap_major'}
    host = xplane(2, '/host:CPU', [
        xline(100, 'python3', t0, [
            xevent(1, 0, 5000000, [xstat(1, 'i', 0)]),
            xevent(2, 1000, 2000, [xstat(6, 'r', 7)]),
        ]),
        xline(101, 'tf_data_iterator_get_next/1', t0, [
            xevent(3, 10, 900000, [xstat(1, 'i', 0)]),
        ]),
    ], {1: 'train_function', 2: 'MatMul', 3: 'Iterator::Model::Prefetch'}, stat_names)
    gpu = xplane(1, '/device:GPU:0', [
        xline(13, 'Stream #13(Compute)', t0 + 100000, [
            xevent(1, 0, 12000, [xstat(3, 'u', 37225), xstat(4, 's', 'regs:128 shm:0'),
                                 xstat(1, 'i', 0)]),
        ]),
        xline(14, 'Stream #14(MemcpyH2D)', t0 + 100000, [
            xevent(2, 500, 28652822, [xstat(5, 's', 'size:100663296 dest:0 async:1'),
                                      xstat(3, 'u', 37224)]),
        ]),
        xline(3735928559, 'Steps', t0, [
            xevent(3, 0, 40978801000, [xstat(2, 's', 'step 0'), xstat(1, 'i', 0)]),
        ]),
        xline(3735928562, 'TensorFlow Ops', t0 + 100000, [
            xevent(4, 0, 12000),
        ], display='TensorFlow Ops'),
    ], {1: 'volta_sgemm_128x64_nn', 2: 'MemcpyH2D', 3: 'EagerKernelExecute 0',
        4: 'model/dense/MatMul:MatMul'}, stat_names,
        [xstat(8, 'd', 1590.0), xstat(9, 'i', 80), xstat(10, 'u', 7), xstat(4, 'b', b'\x00\x01')])
    space = fl(1, host) + fl(1, gpu) + fl(4, 'd1792a5a2842')
    if pending:     # once overflowed in xspace.c (UBSan): a regression input
        put('xspace', 'epoch_times.pb', space, prefix='crash-')
        return
    put('xspace', 'two_planes.pb', space)
    put('xspace', 'two_planes.pb.gz', gz(space))
    put('xspace', 'empty', b'')
    put('xspace', 'one_empty_plane.pb', fl(1, b''))
    put('xspace', 'truncated.pb', space[:len(space) // 2])
    # wrong wire types: field 1 (planes) as varint, name as fixed32, offset_ps as bytes
    put('xspace', 'wrong_wire.pb', varint(1 << 3) + varint(5) + fl(1, varint(2 << 3 | 5) + b'abcd'))
    put('xspace', 'event_bad_wire.pb', fl(1, xplane(1, '/device:GPU:0', [
        fl(4, fl(2, b'xx'))], {}, {})))
    # an event whose metadata id is not in the plane's map, and a ref to nothing
    put('xspace', 'dangling_ids.pb', fl(1, xplane(1, '/device:GPU:0', [
        xline(1, 'Stream #1', 5, [xevent(99, 0, 10, [xstat(42, 'r', 4242)])])], {}, {})))
    # wire protobuf-c's packer never writes, which the reader walks itself
    # (fuzz_xspace.c checks it refuses exactly what protobuf-c refuses): maps
    # before lines, sparse metadata ids, a NUL in a name, a scalar given
    # twice, a 5-byte tag, both members of two oneofs, unknown fields
    odd_line = (bytes([0x88, 0x80, 0x80, 0x80, 0x00, 0x07]) + fl(2, b'stream\0junk') +
                fv(3, 1000) +
                fl(4, fv(1, 5) + fv(2, 3000) + fv(5, 1) + fv(3, 10 ** 6) +
                   fl(4, fv(1, 10 ** 6) + fl(5, '12') + fv(3, 34))) +
                fl(4, fv(1, 900000) + fv(2, 5 * 10 ** 6) + f64(15, 7) +
                   fl(4, xstat(7, 'u', 3))) +
                fv(3, 2000))
    odd_plane = (fl(2, '/device:GPU:0') +
                 fl(5, fv(1, 10 ** 6) + fl(2, fv(1, 10 ** 6) + fl(2, 'correlation_id'))) +
                 fl(5, fv(1, 7) + fl(2, fv(1, 7) + fl(2, 'group_id'))) +
                 fl(4, fv(1, 900000) + fl(2, fv(1, 900000) + fl(2, 'kernel_b'))) +
                 fl(4, fv(1, 5) + fl(2, fv(1, 5) + fl(2, 'volta_sgemm'))) +
                 fl(3, odd_line))
    put('xspace', 'odd_wire.pb', fl(1, odd_plane) + fv(9, 1) + fl(2, 'an error'))
    put('xspace', 'field_zero.pb', fl(1, odd_plane) + b'\x00\x01')
    put('xspace', 'long_tag.pb', fl(1, odd_plane) + b'\x8a\x80\x80\x80\x80\x00\x00')
    put('xspace', 'long_varint.pb', fl(1, odd_plane) + b'\x78' + b'\xff' * 10 + b'\x01')
    put('xspace', 'long_length.pb', fl(1, odd_plane) + b'\x12\x81\x80\x80\x80\x00a')
    put('xspace', 'group.pb', fl(1, odd_plane + b'\x7b\x7c'))
    # the shapes at the edges of xspace.c's fast path, which debug builds
    # check against its exact path: 9- and 10-byte varints, an unread stat
    # whose value is given twice or comes before its id, ids over 127, a
    # stat and an event over 127 bytes, a NUL in a step name, the metadata
    # id after the stats, num_occurrences, and more stats read than it keeps
    many = [xstat(1, 'i', k) for k in range(10)]
    edge_line = xline(7, 'python3', 1000, [
        xevent(1, 2 ** 60, 2 ** 56, [xstat(1, 'u', 2 ** 63 + 5), xstat(3, 'i', -1),
                                     xstat(20, 'i', -7), xstat(20, 'u', 2 ** 57)]),
        xevent(1, 5, 6, [fv(1, 20) + fv(4, 1) + fv(3, 2), fv(4, 9) + fv(1, 20),
                         fv(3, 9) + fv(1, 1), xstat(200, 'i', 3), xstat(201, 's', 'x' * 150)]),
        xevent(2, 7, 8, [xstat(2, 's', 'train 5\0junk'), xstat(4, 's', 'k' * 200),
                         xstat(21, 'd', 1.5), xstat(21, 'b', b'\x00')]),
        fv(2, 9) + fl(4, xstat(1, 'i', 4)) + fv(1, 3) + fv(5, 2) + fv(3, 1),
        xevent(3, 10, 11, many),
    ])
    put('xspace', 'fast_path.pb', fl(1, xplane(2, '/host:CPU', [edge_line],
        {1: 'train_function', 2: 'EagerKernelExecute', 3: 'MatMul'},
        {1: 'group_id', 2: 'step_name', 3: 'step_num', 4: 'kernel_details', 20: 'id',
         21: 'shapes', 200: 'correlation_id', 201: 'long_name'})))
    # offsets and durations near 2^64 ps, negative timestamp (once overflowed)
    put('xspace', 'huge_times.pb', prefix='crash-', data=fl(1, xplane(1, '/device:GPU:0', [
        xline(1, 'Stream #1', (1 << 63) - 1, [xevent(1, (1 << 64) - 1, (1 << 63) - 1)]),
        xline(2, 'Stream #2', -5, [xevent(1, 0, 1)])], {1: 'k'}, {})))


def node(name, start, op_s, op_e, all_e, label=None, thread=None, nanos=False):
    body = fl(1, name) + fv(2, start) + fv(3, op_s) + fv(4, op_e) + fv(5, all_e)
    body += fl(6, fl(1, 'cpu') + fv(2, 10) + fv(3, 20))
    if label:
        body += fl(8, label)
    body += fv(9, start - 40)
    if thread is not None:
        body += fv(10, thread)
    if nanos:
        body += fv(13, start * 1000) + fv(14, op_s * 1000) + fv(15, op_e * 1000) + fv(16, all_e * 1000)
    return body


def stepstats_msg():
    cpu = fl(1, '/job:localhost/replica:0/task:0/device:CPU:0') + \
        fl(2, node('_SOURCE', 1459365298611334, 29, 30, 52, '_SOURCE = NoOp()', 0)) + \
        fl(2, node('MatMul', 1459365298611400, 1, 90, 100, 'MatMul = MatMul(a, b)', 1, True)) + \
        fl(3, fv(1, 1) + fl(2, 'worker'))
    gpu = fl(1, '/job:localhost/replica:0/task:0/device:GPU:0') + \
        fl(2, node('MatMul', 1459365298611410, 0, 50, 60, 'MatMul = MatMul(a, b)'))
    stream = fl(1, '/device:GPU:0/stream:all') + fl(2, node('volta_sgemm', 1459365298611420, 0, 30, 30))
    memcpy = fl(1, '/device:GPU:0/memcpy') + fl(2, node('MEMCPYHtoD', 1459365298611430, 0, 5, 5,
                                                           'edge_1 MEMCPYHtoD'))
    return fl(1, cpu) + fl(1, gpu) + fl(1, stream) + fl(1, memcpy)


def stepstats():
    ss = stepstats_msg()
    rm = fl(1, ss) + fl(2, b'\x0a\x00') + fl(3, b'\x0a\x03abc')
    put('stepstats', 'runmetadata.pb', rm)
    put('stepstats', 'runmetadata.pb.gz', gz(rm))
    put('stepstats', 'stepstats.pb', ss)
    put('stepstats', 'empty', b'')
    put('stepstats', 'truncated.pb', rm[:len(rm) - 7])
    put('stepstats', 'wrong_wire.pb', fl(1, fl(1, fv(1, 5) + fl(2, fl(1, b'n') + fl(2, b'notvarint')))))
    put('stepstats', 'negative_times.pb', fl(1, fl(1, fl(1, 'cpu:0') + fl(2, node('x', 5, 10, 2, 1)))))
    put('stepstats', 'huge_times.pb', fl(1, fl(1, fl(1, 'gpu:0') +
                                              fl(2, node('x', (1 << 63) - 1, (1 << 63) - 1, (1 << 63) - 1, 1)))))
    put('stepstats', 'len_overflow.pb', b'\x0a\xff\xff\xff\xff\xff\xff\xff\xff\x7f' + b'\x0a' * 20)
    return rm


PBTXT = '''step_stats { dev_stats { device: "/job:localhost/replica:0/task:0/cpu:0"
  node_stats { node_name: "_SOURCE" all_start_micros: 1459365298611334 op_start_rel_micros: 29
    op_end_rel_micros: 30 all_end_rel_micros: 52 memory { allocator_name: "cpu" }
    timeline_label: "_SOURCE = NoOp()" scheduled_micros: 1459365298611291 } } }
'''


def stepstats_text():
    put('stepstats_text', 'runmetadata.pbtxt', PBTXT)
    put('stepstats_text', 'comments.pbtxt', '# a comment\n# another\n' + PBTXT.replace('{', '<', 1).replace(' } } }', ' } } >'))
    put('stepstats_text', 'escapes.pbtxt',
        'step_stats { dev_stats { device: "/gpu:0\\n\\x41\\101\\"" node_stats { node_name: \'q\' '
        'all_start_micros: -1 op_end_rel_micros: 0x10 all_end_rel_micros: 99999999999999999999 '
        'unknown_field: 3.5e2 unknown_msg { a: [1, 2] } } } }')
    put('stepstats_text', 'colon_msg.pbtxt', 'step_stats: { dev_stats: [ { device: "a" }, { device: "b" } ] }')
    put('stepstats_text', 'truncated.pbtxt', PBTXT[:len(PBTXT) // 2])
    put('stepstats_text', 'unterminated_string.pbtxt', 'step_stats { dev_stats { device: "abc')
    put('stepstats_text', 'deep.pbtxt', 'step_stats ' + '{ x ' * 300)
    put('stepstats_text', 'gz.pbtxt.gz', gz(PBTXT))
    put('stepstats_text', 'empty', b'')


# ---- tfevents (TFRecord framing) -----------------------------------------

def crc32c(data):
    c = 0xffffffff
    for b in data:
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ (0x82f63b78 & -(c & 1))
    return c ^ 0xffffffff


def masked(data):
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xa282ead8) & 0xffffffff


def record(data, bad_len_crc=False, bad_data_crc=False):
    ln = struct.pack('<Q', len(data))
    lc = masked(ln) ^ (1 if bad_len_crc else 0)
    dc = masked(data) ^ (1 if bad_data_crc else 0)
    return ln + struct.pack('<I', lc) + data + struct.pack('<I', dc)


def tfevents(rm):
    version = record(fd(1, 1608157907.5) + fl(3, 'brain.Event:2'))
    scalar = record(fd(1, 1608157908.0) + fv(2, 3) + fl(5, fl(1, fl(1, 'epoch_loss') + b'\x15' +
                                                              struct.pack('<f', 0.5))))
    profile = record(fd(1, 1608157909.0) + fv(2, 4) + fl(8, fl(1, 'step_4') + fl(2, rm)))
    put('tfevents', 'profile_empty', version)
    put('tfevents', 'scalars_and_runmetadata', version + scalar + profile)
    put('tfevents', 'gz', gz(version + profile))
    put('tfevents', 'bad_data_crc', version + record(fd(1, 1.0) + fv(2, 1), bad_data_crc=True))
    put('tfevents', 'bad_len_crc', version + record(fd(1, 1.0), bad_len_crc=True))
    put('tfevents', 'truncated_record', (version + profile)[:len(version) + 30])
    put('tfevents', 'truncated_header', version + b'\x05\x00\x00')
    put('tfevents', 'huge_len', version + struct.pack('<Q', 1 << 62) +
        struct.pack('<I', masked(struct.pack('<Q', 1 << 62))) + b'x' * 8)
    put('tfevents', 'wrong_wire_event', version + record(fv(1, 5) + fv(8, 7)))
    put('tfevents', 'bad_runmetadata', version + record(fl(8, fl(1, 't') + fl(2, b'\x0a\x05\x0a\x10'))))
    put('tfevents', 'empty', b'')


# ---- marks of a merged file; gzip streams for both backends ----------------

def merged_inputs():
    put('chrome_json', 'merged_inputs',
        '{"traceEvents":[\n'
        '{"ph":"M","pid":1,"name":"tpa_input","args":{"name":"a.json","sort_index":0,'
        '"rank":0,"world_size":2,"backend":"gloo"}},\n'
        '{"ph":"M","pid":2,"name":"tpa_input","args":{"name":"b.json","sort_index":1,'
        '"rank":"1","world_size":2}},\n'
        '{"ph":"M","pid":3,"name":"tpa_input","args":{"name":"c","sort_index":99999999}},\n'
        '{"ph":"X","pid":1,"tid":1,"ts":0,"dur":10,"name":"ProfilerStep#1",'
        '"cat":"user_annotation"},\n'
        '{"ph":"X","pid":2,"tid":1,"ts":1,"dur":10,"name":"ProfilerStep#1",'
        '"cat":"user_annotation"}]}\n')


def gzip_streams():
    # fuzz_gzip: the first byte picks the thread (bit 0), the rest is the stream
    text = b''.join(b'{"ph":"X","name":"op%d","ts":%d,"dur":3},\n' % (i, i * 7)
                    for i in range(600))
    one = gzip.compress(text, 6, mtime=0)
    two = gzip.compress(text[:5000], 1, mtime=0) + gzip.compress(text[5000:], 9, mtime=0)
    flipped = bytearray(one)
    flipped[len(one) // 3] ^= 0x10
    bad_crc = bytearray(one)
    bad_crc[-6] ^= 1
    for name, data, threaded in (('one', one, 0), ('one_threaded', one, 1),
                                 ('two_members', two, 0), ('cut_middle', one[:len(one) // 2], 0),
                                 ('cut_trailer', one[:-3], 1), ('flipped', bytes(flipped), 0),
                                 ('bad_crc', bytes(bad_crc), 1), ('garbage_after', one + b'garbage', 0),
                                 ('empty_member', gzip.compress(b'', mtime=0), 0),
                                 ('plain', text[:2000], 0)):
        put('gzip', name, bytes([threaded]) + data)
    # a dynamic block whose literal/length code is incomplete ("invalid
    # literal/lengths set" to zlib, at the block's header): its data met
    # only the codes it has (ISA-L reads "AA", lib/input/source.c), or one
    # it lacks (ISA-L fails too); a good member after it either way
    tail = gzip.compress(b'tail\n', mtime=0)
    put('gzip', 'incomplete_code', bytes([0]) + incomplete_code_member(False) + tail)
    put('gzip', 'incomplete_code_met', bytes([1]) + incomplete_code_member(True) + tail)


def incomplete_code_member(meet_gap):
    # the stream is written a bit at a time, from each byte's lowest bit
    bits = []

    def put_bits(value, n):                 # extra bits and fields: low bit first
        bits.extend((value >> i) & 1 for i in range(n))

    def put_code(code, n):                  # Huffman codes: high bit first
        bits.extend((code >> (n - 1 - i)) & 1 for i in range(n))

    put_bits(1, 1)                          # the last block
    put_bits(2, 2)                          # dynamic Huffman codes
    put_bits(0, 5)                          # 257 literal/length codes
    put_bits(0, 5)                          # 1 distance code
    put_bits(14, 4)                         # 18 code length codes
    order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1]
    cl = {18: 1, 1: 2, 2: 2}                # codes 0, 10, 11: complete
    for sym in order:
        put_bits(cl.get(sym, 0), 3)
    # the lengths: 'A' (65) 1 bit, end of block 2 bits, nothing else (a
    # half and a quarter of the code space); the one distance code 1 bit
    for zeros, length in ((65, 2), (138, None), (52, 3)):
        put_code(0, 1)                      # 18: a run of zeros
        put_bits(zeros - 11, 7)
        if length is not None:              # then 'A' (1: code 10), end of block (2: 11)
            put_code(length, 2)
    put_code(2, 2)                          # the distance code: 1
    put_code(0, 1)                          # 'A'
    put_code(0, 1)                          # 'A'
    if meet_gap:
        put_code(3, 2)                      # the code 11, which no symbol has
    put_code(2, 2)                          # end of block
    bits.extend([0] * (-len(bits) % 8))
    data = bytes(sum(b << i for i, b in enumerate(bits[k:k + 8]))
                 for k in range(0, len(bits), 8))
    trailer = struct.pack('<II', zlib.crc32(b'AA'), 2)
    return b'\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03' + data + trailer


chrome()
merged_inputs()
gzip_streams()
xspace()
xspace(t0=1608157898000000000, pending=True)    # absolute epoch ns
rm = stepstats()
stepstats_text()
tfevents(rm)
