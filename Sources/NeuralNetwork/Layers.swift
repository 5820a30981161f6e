/// The layers networks are made of (`ProgramLayers.swift`, `SequenceLayers.swift`, `Banded.swift`,
/// `Fusion.swift`), each writing into an output the caller owns (reshaped, never reallocated once
/// large enough), and the vector helpers they share. Inner loops run along a row of pixels in
/// `SIMD16<Float>` steps, with a scalar tail.
public enum Layers {
    public typealias Vector = SIMD16<Float>
    static let lanes = Vector.scalarCount

    /// The larger of each pair of lanes. The standard library's `pointwiseMax` is generic and
    /// is not always inlined (a call a vector, measured at 30% of a detector's time); a
    /// comparison and a blend are.
    @inline(__always)
    static func maximum(_ a: Vector, _ b: Vector) -> Vector { a.replacing(with: b, where: a .< b) }

    /// The smaller of each pair of lanes (see `maximum`).
    @inline(__always)
    static func minimum(_ a: Vector, _ b: Vector) -> Vector { a.replacing(with: b, where: b .< a) }

    @inline(__always)
    static func load(_ pointer: UnsafeMutablePointer<Float>) -> Vector {
        UnsafeRawPointer(pointer).loadUnaligned(as: Vector.self)
    }

    @inline(__always)
    static func store(_ vector: Vector, _ pointer: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(pointer).storeBytes(of: vector, as: Vector.self)
    }
}
