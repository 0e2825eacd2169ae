extension FixedWidthInteger {
    /// `self + other`, or the end of the type's range the sum would pass: for arithmetic on
    /// numbers that come from the network or the disk, which must never trap.
    package func saturatingAdd(_ other: Self) -> Self {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self - other`, or the end of the type's range the difference would pass.
    package func saturatingSubtract(_ other: Self) -> Self {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other > 0 ? .min : .max) : difference
    }
}
