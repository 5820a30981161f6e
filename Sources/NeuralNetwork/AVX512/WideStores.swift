import GlossNeuralActivation

/// The integer products' stores compiled for AVX-512 (`Epilogue.storeIntegers`, inlined here):
/// a vector of sixteen floats is one `zmm` register, so the scales, the bias and the
/// activation (the recogniser's GELU above all) take half the instructions they take in
/// `GlossNeuralNetwork`'s AVX2 build. The same operations in the same order, so the same
/// values. Run only where `KernelChoice` chose the VNNI kernels.
public enum WideStores {
    /// `Epilogue.storeIntegers`, its arguments in the same order.
    @inline(never)
    public static func storeIntegers(
        _ sums: UnsafePointer<Int32>, stride: Int, rows: Int, firstRow: Int, rowScales: UnsafePointer<Float>,
        columnScales: SIMD16<Float>, column: Int, width: Int, bias: UnsafePointer<Float>?, activation: Activation,
        residual: UnsafePointer<Float>?, residualStride: Int, output: UnsafeMutablePointer<Float>, rowStride: Int, padded: Bool
    ) {
        Epilogue.storeIntegers(sums, stride: stride, rows: rows, firstRow: firstRow, rowScales: rowScales,
                               columnScales: columnScales, column: column, width: width, bias: bias, activation: activation,
                               residual: residual, residualStride: residualStride, output: output, rowStride: rowStride,
                               padded: padded)
    }
}
