import GlossNeuralActivation

/// The integer products' stores compiled for AVX-512 (`Epilogue.storeIntegers`, inlined here):
/// a vector of sixteen floats is one `zmm` register, so the scales, the bias and the
/// activation (the recogniser's GELU above all) take half the instructions they take in
/// `GlossNeuralNetwork`'s AVX2 build. The same operations in the same order, so the same
/// values. Run only where `KernelChoice` chose the VNNI kernels.
public enum WideStores {
    @inline(never)
    public static func storeIntegers(
        _ sums: UnsafePointer<Int32>, _ stride: Int, _ rows: Int, _ firstRow: Int, _ rowScales: UnsafePointer<Float>,
        _ columnScales: SIMD16<Float>, _ column: Int, _ width: Int, _ bias: UnsafePointer<Float>?, _ activation: Activation,
        _ residual: UnsafePointer<Float>?, _ residualStride: Int, _ output: UnsafeMutablePointer<Float>, _ rowStride: Int,
        _ padded: Bool
    ) {
        Epilogue.storeIntegers(sums, stride: stride, rows: rows, firstRow: firstRow, rowScales: rowScales,
                               columnScales: columnScales, column: column, width: width, bias: bias, activation: activation,
                               residual: residual, residualStride: residualStride, output: output, rowStride: rowStride,
                               padded: padded)
    }
}
