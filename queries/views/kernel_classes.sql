-- name: kernel_classes
-- version: 1
-- kind: view
-- description: Which GPU kernels are communication, memcpy or memset, by name pattern: one row per kernel family. Everything not matched is compute. Extend it with --queries (a file of the same name replaces it).
--
-- How a row is matched: `pattern` is a regular expression in Rust `regex` syntax,
-- matched case-sensitively against the kernel name with regexp_like (a search,
-- not a full match: anchor with ^ and $ where needed) unless it starts with (?i).
-- A name that several rows match takes the row with the lowest priority
-- (then the lowest family, then pattern, in text order: give a row that must
-- win a lower priority). classified_kernels applies it. Patterns avoid lookaround and
-- backreferences so that they mean the same in Python `re`
-- (fixtures/check_kernel_classes.py checks them against fixtures/kernel_names.json).
-- Names are demangled symbols as a trace shows them: `void ns::kernel<...>(...)`.
-- Rows with class compute pin names that a broader row would otherwise catch.
-- `source` names where the symbol comes from as owner/repo path (symbol); the
-- repositories were read in their snapshots of 2026 (NCCL 2.28+, DeepEP EPv2 with
-- csrc/kernels/legacy, RCCL of 2024-10).
-- Not here: gloo. Its CUDA kernels (gloo/cuda.cu _Kernel_<T>_<op>, cuda_private.cu
-- initializeMemory) are local reductions and fills; the transfers are host/ibverbs
-- copies, so they stay compute. microsoft/msccl runs its algorithms inside the
-- NCCL-named kernels (ncclKernel_<Coll>_...), which the nccl rows match; only its
-- AllToAll and CustomCollective kernels get msccl rows.
-- Columns:
--   family: the library or project (nccl, rccl, deepep, nvshmem, ...)
--   pattern: regular expression over the kernel name
--   class: communication, memcpy, memset or compute
--   collective_kind: allreduce, allgather, reducescatter, alltoall, broadcast, reduce, sendrecv, dispatch, combine, barrier, ... where the pattern tells it; NULL otherwise
--   priority: lower wins when several patterns match
--   source: where the name comes from: owner/repo path (symbol), as you read it
SELECT family, pattern, class, collective_kind, CAST(priority AS BIGINT) AS priority, source FROM (VALUES
  ('p2p', '^Memcpy PtoP', 'communication', 'sendrecv', 1, 'pytorch/kineto libkineto/src (gpu_memcpy event name Memcpy PtoP (Device -> Device))'),
  ('rocm', '^MEMORY_COPY_(HOST_TO_DEVICE|DEVICE_TO_HOST|DEVICE_TO_DEVICE)(\.kd)?$', 'memcpy', NULL, 2, 'tracesql src/tree/gpu.rs is_rocm_copy_kernel (ROCm 7.1 copy kernels)'),
  ('rocm', '^__amd_rocclr_copyBuffer(Rect)?(Aligned)?(\.kd)?$', 'memcpy', NULL, 2, 'ROCm/clr blit kernels (__amd_rocclr_copyBuffer*), as tracesql src/tree/gpu.rs is_rocm_copy_kernel'),
  ('rocm', '^__amd_rocclr_fillBuffer(Aligned)?(\.kd)?$', 'compute', NULL, 2, 'ROCm/clr blit kernels (__amd_rocclr_fillBuffer*), compute as in tracesql src/tree/gpu.rs is_rocm_fill_kernel'),
  ('nccl', '^nccl(Dev)?Kernel_AllReduce_', 'communication', 'allreduce', 10, 'NVIDIA/nccl src/device/generate.py (ncclDevKernel_<Coll>_...); <2.19: src/include/collectives.h NCCL_KERN_NAME (ncclKernel_<func>_<algo>_<proto>_<op>_<type>)'),
  ('nccl', '^nccl(Dev)?Kernel_AllGather', 'communication', 'allgather', 10, 'NVIDIA/nccl src/device/generate.py (ncclDevKernel_AllGather_RING_LL, AllGatherV)'),
  ('nccl', '^nccl(Dev)?Kernel_ReduceScatter_', 'communication', 'reducescatter', 10, 'NVIDIA/nccl src/device/generate.py (ncclDevKernel_ReduceScatter_...)'),
  ('nccl', '^nccl(Dev)?Kernel_Broadcast_', 'communication', 'broadcast', 10, 'NVIDIA/nccl src/device/generate.py (ncclDevKernel_Broadcast_RING_LL)'),
  ('nccl', '^nccl(Dev)?Kernel_Reduce_', 'communication', 'reduce', 10, 'NVIDIA/nccl src/device/generate.py (ncclDevKernel_Reduce_...)'),
  ('nccl', '^nccl(Dev)?Kernel_(SendRecv|Send|Recv)(_|\(|$)', 'communication', 'sendrecv', 10, 'NVIDIA/nccl src/device/generate.py (ncclDevKernel_SendRecv; alltoall, send and recv run on it)'),
  ('nccl', '^ncclSymk?DevKernel_AllReduce_', 'communication', 'allreduce', 10, 'NVIDIA/nccl src/device/symmetric/generate.py (ncclSymkDevKernel_<Coll>_<algo>_<red>_<ty>; 2.27: ncclSymDevKernel_)'),
  ('nccl', '^ncclSymk?DevKernel_AllGather_', 'communication', 'allgather', 10, 'NVIDIA/nccl src/device/symmetric/generate.py (ncclSymkDevKernel_AllGather_<algo>)'),
  ('nccl', '^ncclSymk?DevKernel_ReduceScatter_', 'communication', 'reducescatter', 10, 'NVIDIA/nccl src/device/symmetric/generate.py (ncclSymkDevKernel_ReduceScatter_...)'),
  ('rccl', '^nccl(Dev)?Kernel_AllToAllPivot_', 'communication', 'alltoall', 10, 'ROCm/rccl src/device/generate.py (all_colls AllToAllPivot)'),
  ('rccl', '^ncclDevKernel(Debug)?_Generic_[0-9]', 'communication', NULL, 10, 'ROCm/rccl src/device/common.cu (ncclDevKernel_Generic; unroll variants _1/_2/_4 as seen in ROCm traces)'),
  ('rccl', '^ncclDevKernelDebug_', 'communication', NULL, 15, 'ROCm/rccl src/device/common.cu (ncclDevKernelDebug_Generic)'),
  ('nccl', '^ncclDevKernel_Generic', 'communication', NULL, 20, 'NVIDIA/nccl src/device/common.cu (ncclDevKernel_Generic)'),
  ('msccl', '^ncclKernel_AllToAll_', 'communication', 'alltoall', 10, 'microsoft/msccl src/collectives/device/all_to_all.cu (NCCL_KERN_NAME(AllToAll, ...))'),
  ('msccl', '^ncclKernel_CustomCollective_', 'communication', NULL, 10, 'microsoft/msccl src/collectives/device/custom_collective.cu (NCCL_KERN_NAME(CustomCollective, ...))'),
  ('msccl', '^mscclKernel_', 'communication', NULL, 10, 'ROCm/rccl src/include/msccl/msccl_kernel.h (mscclKernel_<op>_<type>_<proto>_<fullOps>)'),
  ('nccl', '(?i)nccl', 'communication', NULL, 90, 'fallback: any name with nccl (tracesql''s rule before this table)'),
  ('rccl', '(?i)rccl', 'communication', NULL, 90, 'fallback: any name with rccl (tracesql''s rule before this table)'),
  ('deepep', '(deep_ep::(legacy::)?|\bdpsk::ep::)(intranode|internode|internode_ll)::dispatch(_ll)?\b', 'communication', 'dispatch', 10, 'deepseek-ai/DeepEP csrc/kernels/legacy/{intranode,internode,internode_ll}.cu (dispatch); dpsk::ep:: names from deepseek-ai/profile-data traces (dispatch, dispatch_ll)'),
  ('deepep', '(deep_ep::(legacy::)?|\bdpsk::ep::)(intranode|internode|internode_ll)::combine(_ll)?\b', 'communication', 'combine', 10, 'deepseek-ai/DeepEP csrc/kernels/legacy/{intranode,internode,internode_ll}.cu (combine); deepseek-ai/profile-data (combine_ll)'),
  ('deepep', '(deep_ep::(legacy::)?|\bdpsk::ep::)(intranode|internode|internode_ll)::(cached_)?notify_dispatch\b', 'communication', 'dispatch', 10, 'deepseek-ai/DeepEP csrc/kernels/legacy/intranode.cu, internode.cu (notify_dispatch, cached_notify_dispatch)'),
  ('deepep', '(deep_ep::(legacy::)?|\bdpsk::ep::)(intranode|internode|internode_ll)::(cached_)?notify_combine\b', 'communication', 'combine', 10, 'deepseek-ai/DeepEP csrc/kernels/legacy/intranode.cu (cached_notify_combine; notify_combine in older trees)'),
  ('deepep', '(deep_ep::(legacy::)?|\bdpsk::ep::)(intranode|internode|internode_ll)::barrier\b', 'communication', 'barrier', 10, 'deepseek-ai/DeepEP csrc/kernels/legacy/intranode.cu (barrier<kNumRanks>)'),
  ('deepep', '(deep_ep::(legacy::)?|\bdpsk::ep::)(intranode|internode|internode_ll)::', 'communication', NULL, 30, 'deepseek-ai/DeepEP csrc/kernels/legacy/internode.cu (cached_notify), internode_ll.cu (clean_low_latency_buffer, *_mask_buffer)'),
  ('deepep', '(deep_ep::(legacy::)?layout::|\bdpsk::ep::cuda::)get_dispatch_layout\b', 'compute', NULL, 10, 'deepseek-ai/DeepEP csrc/kernels/legacy/layout.cu (get_dispatch_layout: local counting, no transfer)'),
  ('deepep', 'deep_ep::elastic::(hybrid_)?dispatch_impl\b', 'communication', 'dispatch', 10, 'deepseek-ai/DeepEP deep_ep/include/deep_ep/impls/dispatch.cuh, hybrid_dispatch.cuh (EPv2, JIT)'),
  ('deepep', 'deep_ep::elastic::(hybrid_)?combine_impl\b', 'communication', 'combine', 10, 'deepseek-ai/DeepEP deep_ep/include/deep_ep/impls/combine.cuh, hybrid_combine.cuh (EPv2, JIT)'),
  ('deepep', 'deep_ep::elastic::barrier_impl\b', 'communication', 'barrier', 10, 'deepseek-ai/DeepEP deep_ep/include/deep_ep/impls/barrier.cuh (barrier_impl)'),
  ('deepep', 'deep_ep::elastic::pp_(send|recv)_impl\b', 'communication', 'sendrecv', 10, 'deepseek-ai/DeepEP deep_ep/include/deep_ep/impls/pp_send_recv.cuh (pp_send_impl, pp_recv_impl)'),
  ('deepep', 'deep_ep::elastic::engram_fetch(_wait)?_impl\b', 'communication', NULL, 10, 'deepseek-ai/DeepEP deep_ep/include/deep_ep/impls/engram_fetch.cuh, engram_fetch_wait.cuh (one-sided GIN get)'),
  ('deepep', 'deep_ep::elastic::(dispatch_copy|combine_reduce)_epilogue_impl\b', 'compute', NULL, 10, 'deepseek-ai/DeepEP deep_ep/include/deep_ep/impls/*_epilogue.cuh (local copy/reduce out of the receive buffer)'),
  ('deepep', '\bhybrid_ep::dispatch_kernel\b', 'communication', 'dispatch', 10, 'deepseek-ai/DeepEP branch hybrid-ep csrc/hybrid_ep/backend/hybrid_ep_backend.cuh (dispatch_kernel); same in NVIDIA/nccl contrib/nccl_ep/device/hybrid_ep.cuh'),
  ('deepep', '\bhybrid_ep::combine_kernel\b', 'communication', 'combine', 10, 'deepseek-ai/DeepEP branch hybrid-ep csrc/hybrid_ep/backend/hybrid_ep_backend.cuh (combine_kernel)'),
  ('deepep', '\bhybrid_ep::(device_sync|rdma_sync)_kernel\b', 'communication', 'barrier', 10, 'deepseek-ai/DeepEP branch hybrid-ep csrc/hybrid_ep/backend/hybrid_ep_backend.cuh (device_sync_kernel, rdma_sync_kernel)'),
  ('nvshmem', '\balltoall_on_stream_kernel\b', 'communication', 'alltoall', 10, 'NVIDIA/nvshmem src/include/internal/non_abi/nvshmemi_h_to_d_coll_defs.cuh (alltoall_on_stream_kernel)'),
  ('nvshmem', '\bbroadcast_on_stream_kernel\b', 'communication', 'broadcast', 10, 'NVIDIA/nvshmem src/include/internal/non_abi/nvshmemi_h_to_d_coll_defs.cuh (broadcast_on_stream_kernel)'),
  ('nvshmem', '\bfcollect_on_stream_kernel\b', 'communication', 'allgather', 10, 'NVIDIA/nvshmem src/include/internal/non_abi/nvshmemi_h_to_d_coll_defs.cuh (fcollect_on_stream_kernel)'),
  ('nvshmem', '\brdxn_on_stream_kernel\b', 'communication', 'allreduce', 10, 'NVIDIA/nvshmem src/include/internal/non_abi/nvshmemi_h_to_d_coll_defs.cuh (rdxn_on_stream_kernel)'),
  ('nvshmem', '\breducescatter_on_stream_kernel\b', 'communication', 'reducescatter', 10, 'NVIDIA/nvshmem src/include/internal/non_abi/nvshmemi_h_to_d_coll_defs.cuh (reducescatter_on_stream_kernel)'),
  ('nvshmem', '\b(barrier|sync)_on_stream_kernel_threadgroup\b', 'communication', 'barrier', 10, 'NVIDIA/nvshmem src/include/internal/non_abi/nvshmemi_h_to_d_coll_defs.cuh (barrier_on_stream_kernel_threadgroup, sync_...)'),
  ('nvshmem', '\bnvshmemi_(team_index|team_mapping|init_array)_kernel\b', 'compute', NULL, 10, 'NVIDIA/nvshmem src/host/team/team_internal_cuda.cu (team setup kernels)'),
  ('nvshmem', '\bnvshmemi?_', 'communication', NULL, 30, 'NVIDIA/nvshmem src/include/internal/non_abi/nvshmemi_h_to_d_{rma,sync}_defs.cuh (nvshmemi_proxy_*_entrypoint, nvshmemi_signal_op_kernel, nvshmemi_*_wait_until_on_stream_kernel)'),
  ('mscclpp', '\bmscclpp::collective::allreduce', 'communication', 'allreduce', 10, 'microsoft/mscclpp src/ext/collectives/allreduce/*.cu (allreducePacket, allreduceNvls, allreduceRsAg, ...)'),
  ('mscclpp', '\bmscclpp::collective::allgather', 'communication', 'allgather', 10, 'microsoft/mscclpp src/ext/collectives/allgather/*.cu (allgatherFullmesh, allgatherFullmesh2)'),
  ('mscclpp', '\bmscclpp::executionKernel\b', 'communication', NULL, 10, 'microsoft/mscclpp src/core/include/execution_kernel.hpp (executionKernel: runs any execution plan)'),
  ('mscclpp', '^void allreduce([0-9]+|AllPairs|NvlsPacket)[<(]', 'communication', 'allreduce', 20, 'microsoft/mscclpp apps/nccl/src/allreduce.hpp before commit a7072737 (allreduce7..11, global namespace)'),
  ('mscclpp', '^void allgather[0-9]+[<(]', 'communication', 'allgather', 20, 'microsoft/mscclpp apps/nccl/src/allgather.hpp before commit a7072737 (allgather6, allgather8)'),
  ('mscclpp', '\bmscclpp::', 'communication', NULL, 40, 'microsoft/mscclpp (any other kernel in namespace mscclpp)'),
  ('vllm', '\bvllm::cross_device_reduce_scatter\b', 'communication', 'reducescatter', 10, 'vllm-project/vllm csrc/custom_all_gather_reduce_scatter.cuh (cross_device_reduce_scatter)'),
  ('vllm', '\bvllm::cross_device_all_gather\b', 'communication', 'allgather', 10, 'vllm-project/vllm csrc/custom_all_gather_reduce_scatter.cuh (cross_device_all_gather)'),
  ('vllm', '\bvllm::mnnvl_lamport_all_gather\b', 'communication', 'allgather', 10, 'vllm-project/vllm csrc/custom_all_gather_reduce_scatter.cuh (mnnvl_lamport_all_gather)'),
  ('vllm', '\bvllm::mnnvl_lamport_reduce_scatter', 'communication', 'reducescatter', 10, 'vllm-project/vllm csrc/custom_all_gather_reduce_scatter.cuh (mnnvl_lamport_reduce_scatter_kernel)'),
  ('vllm', '\bvllm::cross_device_reduce_(1stage|2stage|half_butterfly)\b', 'communication', 'allreduce', 10, 'vllm-project/vllm csrc/custom_all_reduce.cuh (cross_device_reduce_1stage/2stage/half_butterfly; SGLang sgl-kernel/csrc/allreduce/custom_all_reduce.cuh keeps namespace vllm)'),
  ('vllm', '\bquickreduce::allreduce_prototype_', 'communication', 'allreduce', 10, 'vllm-project/vllm csrc/quickreduce/quick_reduce_impl.cuh (allreduce_prototype_oneshot/twoshot; also SGLang quick_all_reduce)'),
  ('vllm', '(?i)cross_device_reduce', 'communication', 'allreduce', 50, 'fallback: vLLM-style custom all-reduce (tracesql''s rule before this table)'),
  ('sglang', '\bsglang::allreduce_1shotLL_(1node|2node)\b', 'communication', 'allreduce', 10, 'sgl-project/sglang sgl-kernel/csrc/allreduce/mscclpp_allreduce.cuh (allreduce_1shotLL_1node, allreduce_1shotLL_2node)'),
  ('sglang', '\btrt_llm::(oneShotAllReduceKernel|twoShotAllReduceKernel)\b', 'communication', 'allreduce', 10, 'sgl-project/sglang sgl-kernel/csrc/allreduce/trt_reduce_internal.cu (trt_llm::oneShotAllReduceKernel, twoShotAllReduceKernel)'),
  ('trtllm', '\btensorrt_llm::[A-Za-z0-9_:]*ar_fusion::allreduce_fusion_kernel', 'communication', 'allreduce', 10, 'NVIDIA/TensorRT-LLM cpp/tensorrt_llm/kernels/communicationKernels/allReduceFusionKernels.cu (ar_fusion::allreduce_fusion_kernel_oneshot_lamport, _twoshot_sync)'),
  ('trtllm', '\btensorrt_llm::[A-Za-z0-9_:]*moe_comm::moeA2A[A-Za-z0-9_]*Dispatch', 'communication', 'dispatch', 10, 'NVIDIA/TensorRT-LLM cpp/tensorrt_llm/kernels/communicationKernels/moeAlltoAllKernels.cu (moe_comm::moeA2ADispatchKernel, moeA2APrepareDispatchKernel)'),
  ('trtllm', '\btensorrt_llm::[A-Za-z0-9_:]*moe_comm::moeA2A[A-Za-z0-9_]*Combine', 'communication', 'combine', 10, 'NVIDIA/TensorRT-LLM cpp/tensorrt_llm/kernels/communicationKernels/moeAlltoAllKernels.cu (moe_comm::moeA2A*Combine*)'),
  ('trtllm', '\b(oneShotAllReduceKernel|twoShotAllReduceKernel)\b', 'communication', 'allreduce', 20, 'NVIDIA/TensorRT-LLM cpp/tensorrt_llm/kernels/customAllReduceKernels.cu (oneShotAllReduceKernel, twoShotAllReduceKernel)'),
  ('trtllm', '\b(oneshotAllreduceFusionKernel|twoshotAllreduceKernel|rmsNormLamport)\b', 'communication', 'allreduce', 20, 'NVIDIA/TensorRT-LLM cpp/tensorrt_llm/kernels/communicationKernels/mnnvlAllreduceKernels.cu (MNNVL one-/two-shot; rmsNormLamport reads peers'' Lamport buffers); same names in FlashInfer trtllm_mnnvl_allreduce'),
  ('flashinfer', '\bflashinfer::trtllm_allreduce_fusion::', 'communication', 'allreduce', 10, 'flashinfer-ai/flashinfer include/flashinfer/comm/trtllm_allreduce_fusion.cuh (allreduce_fusion_kernel_oneshot_lamport, ...)'),
  ('aiter', '\baiter::cross_device_reduce_', 'communication', 'allreduce', 10, 'ROCm/aiter csrc/include/custom_all_reduce.cuh (cross_device_reduce_1stage/2stage[_naive|_write_mode])'),
  ('aiter', '\baiter::(allgather_(naive|vec|lastdim)|ag_gfx1250_)', 'communication', 'allgather', 10, 'ROCm/aiter csrc/include/custom_all_reduce.cuh (allgather_naive/vec/lastdim), custom_all_reduce_gfx1250.cuh (ag_gfx1250_*)'),
  ('aiter', '\baiter::(reduce_scatter_|rs_gfx1250_)', 'communication', 'reducescatter', 10, 'ROCm/aiter csrc/include/custom_all_reduce.cuh (reduce_scatter_split_*, reduce_scatter_cross_device_store), custom_all_reduce_gfx1250.cuh (rs_gfx1250_*)'),
  ('aiter', '\baiter::((qknorm_)?allreduce_fusion_kernel|allReduceQuantFp8|allreduce_mhc_post|allreduce_(rmsnorm_)?prototype_|ar_(ll_)?gfx1250)', 'communication', 'allreduce', 10, 'ROCm/aiter csrc/include/custom_all_reduce.cuh (allreduce_fusion_kernel_*, allReduceQuantFp8), quick_all_reduce.cuh (allreduce_prototype_twoshot), custom_all_reduce_gfx1250.cuh (ar_*gfx1250*)'),
  ('torch_symm_mem', '\(anonymous namespace\)::(multimem_all_reduce|multimem_one_shot_all_reduce|one_shot_all_reduce|two_shot_all_reduce)_kernel', 'communication', 'allreduce', 10, 'pytorch/pytorch torch/csrc/distributed/c10d/symm_mem/CUDASymmetricMemoryOps.cu (anonymous-namespace multimem_all_reduce_kernel, one_shot_/two_shot_all_reduce_kernel[_inplace])'),
  ('torch_symm_mem', '\(anonymous namespace\)::multimem_all_gather_kernel', 'communication', 'allgather', 10, 'pytorch/pytorch torch/csrc/distributed/c10d/symm_mem/CUDASymmetricMemoryOps.cu (multimem_all_gather_kernel)'),
  ('torch_symm_mem', '\bc10d::symmetric_memory::(barrier|put_signal|wait_signal)_kernel\b', 'communication', 'barrier', 10, 'pytorch/pytorch torch/csrc/distributed/c10d/symm_mem/CUDASymmetricMemory.cu (barrier_kernel, put_signal_kernel, wait_signal_kernel)'),
  ('userbuffers', '\buserbuffers_fp16_sum_inplace_gpu_(rr|rw|mc)_ag\b', 'communication', 'allgather', 10, 'NVIDIA/TransformerEngine transformer_engine/common/comm_gemm_overlap/userbuffers/userbuffers.cu (userbuffers_fp16_sum_inplace_gpu_{rr,rw,mc}_ag)'),
  ('userbuffers', '\buserbuffers_fp16_sum_inplace_gpu_(rr|mc)_rs', 'communication', 'reducescatter', 10, 'NVIDIA/TransformerEngine .../userbuffers/userbuffers.cu (userbuffers_fp16_sum_inplace_gpu_{rr,mc}_rs[_oop[_fp8|_stride|...]])'),
  ('userbuffers', '\buserbuffers_fp16_sum_inplace_gpu_(rr|rw|mc)\b', 'communication', 'allreduce', 20, 'NVIDIA/TransformerEngine .../userbuffers/userbuffers.cu (userbuffers_fp16_sum_inplace_gpu_{rr,rw,mc})'),
  ('userbuffers', '\bkuserbuffers_(pull|push)(send|recv|sendrecv)', 'communication', 'sendrecv', 10, 'NVIDIA/TransformerEngine .../userbuffers/userbuffers.cu (kuserbuffers_pullsend, _pullrecv, _pushsend, _pushrecv, _pushsendrecv[_atomic|_multiatomic])'),
  ('userbuffers', '\bkuserbuffers_(inc|dummy)\b', 'communication', NULL, 10, 'NVIDIA/TransformerEngine .../userbuffers/userbuffers.cu (kuserbuffers_inc, kuserbuffers_dummy: flag updates)')
) AS t(family, pattern, class, collective_kind, priority, source)
