@_exported import GlossNeuralActivation

/// The layers networks are made of (`ProgramLayers.swift`, `SequenceLayers.swift`, `Banded.swift`,
/// `Fusion.swift`), each writing into an output the caller owns (reshaped, never reallocated once
/// large enough), and the vector helpers they share. Inner loops run along a row of pixels in
/// `SIMD16<Float>` steps, with a scalar tail.
public enum Layers {
    public typealias Vector = SIMD16<Float>
    static let lanes = Vector.scalarCount

    @inline(__always)
    static func load(_ pointer: UnsafeMutablePointer<Float>) -> Vector {
        UnsafeRawPointer(pointer).loadUnaligned(as: Vector.self)
    }

    @inline(__always)
    static func store(_ vector: Vector, _ pointer: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(pointer).storeBytes(of: vector, as: Vector.self)
    }
}
