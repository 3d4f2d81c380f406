-- name: op_equivalence
-- version: 1
-- kind: comparison
-- description: Op and launch-API names that do the same work on different vendors' stacks, mapped to one canonical name, so that H100 vs MI300X compares ops, not vendor spellings.
--
-- Edit or extend it like any query (`--queries DIR` with a file of this name):
-- each row maps `name` to `canonical_name`; names not listed are their own
-- canonical name. The comparison views match rows on the canonical name and
-- say so in `match_kind` ('equivalent') when the two sides' names differ.
-- TraceLens matches exact names only (spec compare.md §8 A9, B3).
-- Columns:
--   name: an op or API name as a trace writes it
--   canonical_name: the name both vendors' spellings are compared under
--   family: what the equivalent names have in common
SELECT name, canonical_name, family
FROM (VALUES
  ('aten::cudnn_convolution', 'aten::convolution (vendor)', 'convolution library call'),
  ('aten::miopen_convolution', 'aten::convolution (vendor)', 'convolution library call'),
  ('aten::cudnn_convolution_transpose', 'aten::convolution_transpose (vendor)', 'transposed convolution library call'),
  ('aten::miopen_convolution_transpose', 'aten::convolution_transpose (vendor)', 'transposed convolution library call'),
  ('aten::cudnn_convolution_relu', 'aten::convolution_relu (vendor)', 'fused convolution + relu'),
  ('aten::miopen_convolution_relu', 'aten::convolution_relu (vendor)', 'fused convolution + relu'),
  ('aten::cudnn_batch_norm', 'aten::batch_norm (vendor)', 'batch norm library call'),
  ('aten::miopen_batch_norm', 'aten::batch_norm (vendor)', 'batch norm library call'),
  ('aten::cudnn_batch_norm_backward', 'aten::batch_norm_backward (vendor)', 'batch norm backward library call'),
  ('aten::miopen_batch_norm_backward', 'aten::batch_norm_backward (vendor)', 'batch norm backward library call'),
  ('aten::_flash_attention_forward', 'attention forward (fused)', 'fused attention forward kernels'),
  ('aten::_efficient_attention_forward', 'attention forward (fused)', 'fused attention forward kernels'),
  ('aten::_flash_attention_backward', 'attention backward (fused)', 'fused attention backward kernels'),
  ('aten::_efficient_attention_backward', 'attention backward (fused)', 'fused attention backward kernels'),
  ('aten::_scaled_dot_product_flash_attention', 'aten::scaled_dot_product_attention (fused)', 'SDPA dispatch to a fused kernel'),
  ('aten::_scaled_dot_product_efficient_attention', 'aten::scaled_dot_product_attention (fused)', 'SDPA dispatch to a fused kernel'),
  ('aten::_scaled_dot_product_cudnn_attention', 'aten::scaled_dot_product_attention (fused)', 'SDPA dispatch to a fused kernel'),
  ('aten::_scaled_dot_product_flash_attention_backward', 'aten::scaled_dot_product_attention_backward (fused)', 'SDPA backward dispatch to a fused kernel'),
  ('aten::_scaled_dot_product_efficient_attention_backward', 'aten::scaled_dot_product_attention_backward (fused)', 'SDPA backward dispatch to a fused kernel'),
  ('cudaLaunchKernel', 'launch kernel', 'kernel launch API'),
  ('hipLaunchKernel', 'launch kernel', 'kernel launch API'),
  ('hipExtModuleLaunchKernel', 'launch kernel', 'kernel launch API'),
  ('hipModuleLaunchKernel', 'launch kernel', 'kernel launch API'),
  ('cuLaunchKernel', 'launch kernel', 'kernel launch API'),
  ('cudaLaunchKernelExC', 'launch kernel', 'kernel launch API'),
  ('cudaMemcpyAsync', 'memcpy async', 'asynchronous copy API'),
  ('hipMemcpyAsync', 'memcpy async', 'asynchronous copy API'),
  ('hipMemcpyWithStream', 'memcpy async', 'asynchronous copy API'),
  ('cudaMemsetAsync', 'memset async', 'asynchronous memset API'),
  ('hipMemsetAsync', 'memset async', 'asynchronous memset API')
) AS t(name, canonical_name, family)
ORDER BY canonical_name, name
