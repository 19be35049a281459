pub mod knights;
pub mod oshidori;
